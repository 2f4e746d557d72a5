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

  function tableCard(t) {
    const st = t.state, d = (st && st.detail) || {};
    const stale = isStale(t);
    const status = conn === "connected" ? (t.status || "unknown") : "unknown";
    let body = "";
    if (st && st.game) {
      const sides = t.sides(), scores = st.scores || [], games = Array.isArray(d.games) ? d.games : null;
      body += `<table class="dscores">` + sides.map((s, i) =>
        `<tr class="${st.turn && t.sideOfSeat(st.turn.seat) === i ? "active" : ""}"><td class="dname">${esc(s.name)}</td>` +
        `<td class="dscore" data-side="${i}">${esc(scores[i])}</td>` +
        `<td class="dgames" title="games won">${games ? "●".repeat(games[i] || 0) + `<span class="dim"> games ${esc(games[i])}</span>` : ""}</td></tr>`).join("") + `</table>`;
      const trick = (Array.isArray(d.current_trick) ? d.current_trick : [])
        .map((c) => `<span class="cardwrap mini">${CT.cardSVG(c.card, t.deck)}</span>`).join("");
      let line = st.finished ? (st.match_winner !== null && st.match_winner !== undefined ?
        `Match won by ${esc(t.sideName(st.match_winner))}` : "Match over") :
        (st.turn ? `${esc(t.seatName(st.turn.seat))} to act` : "");
      if (d.stake !== undefined && d.stake !== null && d.stake !== 1) line += ` · stake ${esc(d.stake)}`;
      body += `<div class="dtrick">${trick}</div><div class="dline">${line}</div>`;
    } else {
      body += `<div class="dline">no match in progress</div>`;
    }
    const heard = t.lastHeard ? `updated ${CT.ago(Date.now() - t.lastHeard)} ago` : "";
    const warn = stale ? `<div class="stale">⚠ no news for ${CT.ago(Date.now() - Math.max(t.lastLive || 0, lastConnected || since))} — data may be stale</div>` :
      (status === "offline" ? `<div class="stale">⚠ offline — last known state</div>` : "");
    const game = st && st.game ? CT.gameName(st.game) : (t.meta ? CT.gameName(t.meta.game) : "");
    return `<a class="tcard ${esc(status)}${stale ? " isstale" : ""}" href="${esc(link(t.id))}" data-table="${esc(t.id)}" ` +
      `data-status="${esc(status)}" data-stale="${stale ? 1 : 0}" data-seq="${t.seq === null ? "" : t.seq}">` +
      `<div class="thead"><span class="tname">${esc((t.meta && t.meta.name) || t.id)}</span>` +
      `<span class="pill ${esc(status)} tstatus">${esc(status)}</span></div>` +
      `<div class="tsub">${esc(game)}${d.hand ? " · hand " + esc(d.hand) : ""} <span class="dim">${esc(t.id)}</span></div>` +
      body + warn + `<div class="theard dim">${heard}</div></a>`;
  }

  function render() {
    const ids = Array.from(tables.keys()).sort();
    const box = CT.el("tables");
    box.innerHTML = ids.length ? ids.map((id) => tableCard(tables.get(id))).join("") :
      `<div class="waiting">Waiting for tables…</div>`;
    const online = ids.filter((id) => tables.get(id).status === "online").length;
    CT.el("summary").textContent = `${ids.length} table${ids.length === 1 ? "" : "s"}, ${online} online`;
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
  }

  global.addEventListener("DOMContentLoaded", main);
})(window);
