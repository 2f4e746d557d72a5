/* The club dashboard: every table under cardtable/v1/tables/+/…, discovered from the
 * retained topics, with its state, online/offline (the last will), and a warning when a
 * table says it is online but nothing has been heard from it for `stale` seconds.
 */
(function (global) {
  "use strict";
  const CT = global.CT;
  const esc = CT.esc;
  const tables = new Map();
  let cfg, conn = "connecting", since = Date.now(), lastConnected = null;

  function get(id) {
    if (!tables.has(id)) { const t = new CT.Table(id); t.lastLive = null; tables.set(id, t); }
    return tables.get(id);
  }

  function link(id) {
    const q = new URLSearchParams(global.location.search);
    for (const k of ["stale", "overlay", "chroma", "delay"]) q.delete(k);
    q.set("table", id);
    return "index.html?" + q.toString();
  }

  function isStale(t) {
    if (t.status !== "online" || conn !== "connected") return false;
    const heard = Math.max(t.lastLive || 0, lastConnected || since);
    return Date.now() - heard > cfg.stale * 1000;
  }

  const REASONS = {low_confidence: "unsure", duplicate_card: "already played", not_in_deck: "not in this deck",
                   unknown_card: "unknown card", out_of_turn: "out of turn", face_down: "face down"};

  /* The table's link: offline (the last will) or stale (online, but silent). */
  function linkWarnings(t, stale) {
    const out = [];
    if (t.status === "offline") out.push("Table offline — last known state");
    if (stale) out.push(`No news for ${CT.ago(Date.now() - Math.max(t.lastLive || 0, lastConnected || since))} — data may be stale`);
    return out;
  }

  /* What needs the referee at this table, most urgent first (docs/mqtt.md state fields). */
  function alertsOf(t) {
    const st = t.state || {}, out = [];
    if (st.fault) out.push(st.fault.message || st.fault.code);
    if (st.pending && typeof st.pending.seat === "number") {
      out.push(`Card to confirm at ${t.seatName(st.pending.seat)}` +
               (st.pending.reason ? ` (${REASONS[st.pending.reason] || st.pending.reason})` : ""));
    }
    for (const a of Array.isArray(st.alerts) ? st.alerts : []) {
      if (a && a.code !== "confirm_card") out.push(`${a.code}${a.message ? ": " + a.message : ""}`);
    }
    return out;
  }

  function cards(list, deck, winner) {
    return (list || []).map((c) => `<span class="cardwrap dcard${winner !== undefined && c.seat === winner ? " winner" : ""}">` +
      `${CT.cardSVG(c.card, deck)}</span>`).join("");
  }

  function tableCard(t) {
    const st = t.state, d = (st && st.detail) || {};
    const stale = isStale(t);
    const status = conn === "connected" ? (t.status || "unknown") : "unknown";
    let body = "";
    if (st && st.game) {
      const sides = t.sides(), scores = st.scores || [], games = Array.isArray(d.games) ? d.games : null;
      const turnSide = st.turn && !st.finished ? t.sideOfSeat(st.turn.seat) : null;
      const rows = sides.map((s, i) =>
        `<tr class="${turnSide === i ? "active" : ""}"><td class="dname">${esc(s.name)}</td>` +
        `<td class="dscore" data-side="${i}">${esc(scores[i])}</td>` +
        `<td class="dgames" title="games won">${games ? `<span class="dim">games</span> ${esc(games[i])}` : ""}</td></tr>`).join("");
      const turn = st.finished ? (st.match_winner !== null && st.match_winner !== undefined ?
        `Match won by ${t.sideName(st.match_winner)}` : "Match over") :
        (st.turn ? CT.turnText(st.game, st.turn.expects, t.seatName(st.turn.seat)) : "");
      const stake = d.stake !== undefined && d.stake !== null && d.stake !== 1 ? `Stake ${d.stake}` :
        (d.comanda && d.comanda.text ? `Comanda “${d.comanda.text}”` : "");
      const lt = st.last_trick;
      const lastWho = lt && lt.winner !== null && lt.winner !== undefined ? " — " + esc(t.seatName(lt.winner)) : "";
      body += `<div class="tbody"><table class="dscores">${rows}</table>` +
        `<div class="dturn">${esc(turn)}</div>${stake ? `<div class="dstake">${esc(stake)}</div>` : ""}` +
        `<div class="dtricks"><div><div class="dlabel">on the table</div>` +
        `<div class="dtrick">${cards(d.current_trick, t.deck)}</div></div>` +
        `<div><div class="dlabel">last trick${lastWho}</div>` +
        `<div class="dlast">${lt ? cards(lt.cards, t.deck, lt.winner) : ""}</div></div></div></div>`;
    } else {
      body += `<div class="tbody"><div class="dturn">no match in progress</div></div>`;
    }
    const alerts = alertsOf(t), links = linkWarnings(t, stale);
    const warn = (links.length ? `<div class="dwarn stale">${links.map((a) => `<div>⚠ ${esc(a)}</div>`).join("")}</div>` : "") +
      (alerts.length ? `<div class="dalerts">${alerts.map((a) => `<div>⚠ ${esc(a)}</div>`).join("")}</div>` : "");
    const heard = t.lastHeard ? `updated ${CT.ago(Date.now() - t.lastHeard)} ago` : "";
    const game = st && st.game ? CT.gameName(st.game) : (t.meta ? CT.gameName(t.meta.game) : "");
    return `<a class="tcard ${esc(status)}${stale ? " isstale" : ""}${alerts.length ? " needs" : ""}" href="${esc(link(t.id))}" ` +
      `data-table="${esc(t.id)}" data-status="${esc(status)}" data-stale="${stale ? 1 : 0}" data-seq="${t.seq === null ? "" : t.seq}">` +
      `<div class="thead"><span class="tname">${esc((t.meta && t.meta.name) || t.id)}</span>` +
      `<span class="pill ${esc(status)} tstatus">${esc(status)}</span></div>` +
      `<div class="tsub">${esc(game)}${d.hand ? " · hand " + esc(d.hand) : ""}${d.trick ? " · trick " + esc(d.trick) : ""}` +
      ` <span class="dim">${esc(t.id)}</span> <span class="theard dim">${heard}</span></div>` + body + warn + `</a>`;
  }

  /* The grid that fills the screen: the number of columns whose cells come closest to the
   * shape a card reads best in (CARD_ASPECT wide for 1 high), and a font size that scales
   * every card's content to its cell. */
  const CARD_ASPECT = 1.7;
  function layout(n, box) {
    const W = box.clientWidth, H = global.innerHeight - box.getBoundingClientRect().top;
    let best = {cols: 1, size: 0};
    for (let cols = 1; cols <= Math.max(1, n); cols++) {
      const rows = Math.ceil(n / cols), w = W / cols, h = H / rows;
      const size = Math.min(w, h * CARD_ASPECT);
      if (size > best.size) best = {cols, rows, w, h, size};
    }
    box.style.gridTemplateColumns = `repeat(${best.cols}, minmax(0, 1fr))`;
    box.style.gridTemplateRows = `repeat(${best.rows || 1}, minmax(0, 1fr))`;
    box.style.height = `${Math.max(0, H)}px`;
    // 23 em across and 20 em down hold a card's content, a 3-seat Troccas with two alerts
    // included (tests/web/test_layout.py checks that nothing spills out of its card)
    box.style.fontSize = `${Math.max(9, Math.min(best.w / 23, best.h / 20)).toFixed(1)}px`;
  }

  function render() {
    const ids = Array.from(tables.keys()).sort();
    const box = CT.el("tables");
    box.innerHTML = ids.length ? ids.map((id) => tableCard(tables.get(id))).join("") :
      `<div class="waiting">Waiting for tables…</div>`;
    if (ids.length) layout(ids.length, box);
    const online = ids.filter((id) => tables.get(id).status === "online").length;
    const needs = ids.filter((id) => box.querySelector(`.tcard[data-table="${id}"].needs`)).length;
    CT.el("summary").textContent = `${ids.length} table${ids.length === 1 ? "" : "s"}, ${online} online` +
      (needs ? ` · ${needs} need${needs === 1 ? "s" : ""} the referee` : "");
    const c = CT.el("conn");
    c.textContent = conn === "connected" ? "live" : (conn.startsWith("refused") ? conn : "no broker");
    c.className = "pill " + (conn === "connected" ? "online" : "offline");
    global.document.body.dataset.conn = conn;
    global.document.body.dataset.tables = ids.join(",");
  }

  function onMessage(topic, text, retained) {
    const t = CT.splitTopic(topic);
    if (!t || t.table === "" || t.kind.startsWith("cmd")) return;
    if (!["status", "meta", "state", "events", "alerts"].includes(t.kind)) return;
    const tab = get(t.table);
    if (!retained) tab.lastLive = Date.now();
    tab.apply(t.kind, text, retained);
    render();
  }

  async function main() {
    cfg = await CT.loadConfig();
    for (const id of cfg.tables) get(id);
    render();
    const client = new CT.MqttClient({
      url: cfg.url, username: cfg.username, password: cfg.password, keepalive: cfg.keepalive,
      topics: ["status", "meta", "state", "events"].map((k) => CT.ROOT + "+/" + k),
      onMessage: CT.delayed(cfg.delay, onMessage),
      onState: (s) => { conn = s; if (s === "connected") lastConnected = Date.now(); render(); },
    });
    CT.client = client;
    CT.tables = tables;
    client.start();
    setInterval(render, 1000);
    global.addEventListener("resize", render);
  }

  global.addEventListener("DOMContentLoaded", main);
})(window);
