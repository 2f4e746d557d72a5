/* The single-table scoreboard (TV) and its compact overlay mode (OBS browser source).
 *
 * Everything shown comes from the retained topics of one table (docs/mqtt.md); events only
 * add short animations. Nothing hidden is ever drawn: the state carries no hands, and of
 * the state only the fields named below are shown (a pending card's guess is not).
 */
(function (global) {
  "use strict";
  const CT = global.CT;
  const esc = CT.esc;
  const doc = global.document;

  const LADDERS = {vitou: [3, 6, 12, "barrac"], truco: [1, 3, 6, 9, 12]};
  const REASONS = {tricks: "on tricks", refused: "refused", ran: "ran", tied: "tied",
                   decided: "decided", penalty: "penalty"};
  let cfg, table, conn = "connecting", flashTimer = null;
  CT.shown = [];

  function card(id, cls) {
    return `<span class="cardwrap ${cls || ""}">${CT.cardSVG(id, table.deck)}</span>`;
  }

  /* Where each seat sits around the drawn table, as an angle (0 = east, 90 = south, degrees,
   * screen coordinates): meta positions, else seat 0 at the bottom and play order going round
   * anticlockwise (or clockwise) as seen from above. */
  const ANGLE = {south: 90, west: 180, north: 270, east: 0};
  function seatAngles() {
    const n = table.players, out = {};
    const m = table.meta;
    if (m && Array.isArray(m.seats) && m.seats.every((s) => s && ANGLE[s.position] !== undefined)) {
      m.seats.forEach((s) => { out[s.seat] = ANGLE[s.position]; });
      return out;
    }
    const clockwise = m && typeof m.clockwise === "boolean" ? m.clockwise : table.game === "vitou";
    for (let s = 0; s < n; s++) out[s] = 90 + (clockwise ? 1 : -1) * 360 * s / n;
    return out;
  }

  function stakeText(g, d) {
    if (!d) return "";
    const s = d.stake;
    if (g === "vitou") {
      if (s === null || s === undefined || s === 1) return "No bid — hand worth 1";
      return `Bid ${s === "barrac" ? "BARRAC" : s}` + (d.bid_team !== null && d.bid_team !== undefined ?
        ` by ${table.sideName(d.bid_team)}` : "");
    }
    if (s === null || s === undefined) return "";
    return `Stake ${s}`;
  }

  function ladder(steps, current, proposed) {
    return `<div class="ladder">` + steps.map((v) => {
      const cls = v === current ? "on" : (v === proposed ? "proposed" : "");
      return `<span class="rung ${cls}">${esc(v === "barrac" ? "barrac" : v)}</span>`;
    }).join('<span class="arrow">→</span>') + `</div>`;
  }

  /* A comanda group: "5" when it is one rank in every suit, else the cards themselves. */
  const RANK_SHORT = {ace: "A", jack: "F", knight: "C", king: "R"};
  function orderGroup(grp) {
    const ranks = new Set(grp.map((c) => String(c).split("/")[1]));
    if (grp.length === 4 && ranks.size === 1) {
      const r = Array.from(ranks)[0];
      return `<span class="group rank" title="${esc(r)} (all suits)">${esc(RANK_SHORT[r] || r)}</span>`;
    }
    return `<span class="group">${grp.map((x) => card(x, "tiny")).join("")}</span>`;
  }

  /* The game's own panel: Vitou bid, Truco ladder, Trionfetti comanda, Troccas totals. */
  function gamePanel(st) {
    const g = st.game, d = st.detail || {};
    if (g === "vitou") {
      const cur = d.stake === null || d.stake === undefined || d.stake === 1 ? null : d.stake;
      let extra = "";
      if (d.answerer !== null && d.answerer !== undefined) extra += `<div>${esc(table.seatName(d.answerer))} may refuse</div>`;
      if (d.team_at_20 !== null && d.team_at_20 !== undefined) extra += `<div>${esc(table.sideName(d.team_at_20))} at 20</div>`;
      if (d.phase === "pass20") extra += `<div>20–20: play or pass</div>`;
      return `<h3>Bid</h3>${ladder(LADDERS.vitou, cur, null)}<div class="big" id="stake">${esc(stakeText(g, d))}</div>${extra}`;
    }
    if (g === "truco") {
      const cur = d.stake === undefined || d.stake === null ? 1 : d.stake;
      const prop = d.pending && d.pending.value !== undefined ? d.pending.value : null;
      let extra = "";
      if (prop !== null) extra += `<div>${esc(table.sideName(d.pending.team))} ask ${esc(prop)} — ${esc(table.sideName(1 - d.pending.team))} to answer</div>`;
      if (d.team_at_11 !== undefined && d.team_at_11 !== null) extra += `<div>${esc(table.sideName(d.team_at_11))} at 11: hand of eleven</div>`;
      if (Array.isArray(d.burned) && d.burned.length) extra += `<div>Burned: ${d.burned.map((c) => card(c, "tiny")).join("")}</div>`;
      return `<h3>Truco ladder</h3>${ladder(LADDERS.truco, cur, prop)}<div class="big" id="stake">Hand worth ${esc(cur)}` +
        (d.bet_team !== undefined && d.bet_team !== null ? ` <span class="dim">(${esc(table.sideName(d.bet_team))})</span>` : "") + `</div>${extra}`;
    }
    if (g === "trionfetti") {
      const c = d.comanda && typeof d.comanda === "object" ? d.comanda : null;
      const order = c && Array.isArray(c.order) ? c.order : null;
      let html = `<h3>Comanda</h3><div class="big" id="stake">${c && c.text ? "“" + esc(c.text) + "”" : "not declared yet"}</div>`;
      if (order && order.length) {
        // the data lists the lowest group first; people read the highest first
        html += `<div class="dim ordercap">strongest first</div><div class="order" id="order">` + order.slice().reverse().map((grp) =>
          orderGroup(Array.isArray(grp) ? grp : [grp]))
          .join('<span class="gt">›</span>') + `</div>`;
      }
      const v = d.vagaresto;
      if (v) html += `<div class="big">Vagaresto ${v.stake !== undefined && v.stake !== null ? esc(v.stake) : ""}` +
        ` <span class="dim">by ${esc(table.seatName(v.caller))}${v.accepted ? ", accepted" : ""}</span></div>`;
      return html;
    }
    if (g === "troccas") {
      const sides = table.sides();
      const rows = (st.hands || []).slice(-4).map((h) => {
        const cp = Array.isArray(h.card_points) ? h.card_points : [];
        return `<tr class="handrow"><td>${esc(h.hand)}</td>${sides.map((s, i) => `<td>${cp[i] !== undefined ? esc(cp[i]) : ""}</td>`).join("")}` +
          `<td class="result">${h.winner === null || h.winner === undefined ? "—" : esc(table.sideName(h.winner)) + " +" + esc(h.points)}</td></tr>`;
      }).join("");
      const won = Array.isArray(d.tricks_won) ? `<div>Tricks this hand: ${sides.map((s, i) => esc(s.name) + " " + esc(d.tricks_won[i])).join(" · ")}</div>` : "";
      const of = d.hands_per_game ? `<div>Hand ${esc(d.hand_in_game)} of ${esc(d.hands_per_game)} in game ${esc(d.game)}</div>` : "";
      return of + won + `<h3>Running totals <span class="dim">(card points per hand)</span></h3><table class="sheet n${sides.length}"><tr><th>hand</th>${sides.map((s) => `<th>${esc(s.name)}</th>`).join("")}<th>result</th></tr>` +
        rows + `<tr class="total"><td>total</td>${sides.map((s, i) => `<td>${esc((st.scores || [])[i])}</td>`).join("")}<td></td></tr></table>`;
    }
    return "";
  }

  function handsList(st) {
    const hands = (st.hands || []).slice(-5).reverse();
    if (!hands.length) return "";
    return `<h3>Last hands</h3><ul class="hands">` + hands.map((h) =>
      `<li>Hand ${esc(h.hand)}: ${h.winner === null || h.winner === undefined ? "nobody" : esc(table.sideName(h.winner))}` +
      ` +${esc(h.points)} <span class="dim">${esc(REASONS[h.reason] || h.reason || "")}</span></li>`).join("") + `</ul>`;
  }

  function gamesWon(st) {
    const d = st.detail || {};
    return Array.isArray(d.games) ? d.games : null;
  }

  function statusPill() {
    let s = table.status || "unknown", cls = s;
    if (conn !== "connected") { s = conn.startsWith("refused") ? conn : "no broker"; cls = "offline"; }
    return `<span id="status" class="pill ${esc(cls)}">${esc(s)}</span>`;
  }

  /* The table from above. Each seat is one block (its name and the card it played, the card
   * on the side towards the middle), pinned by its outer edge to the felt's rim: a card can
   * never cover a name, and the blocks stay inside the felt whatever its size. */
  function trickArea(st) {
    const d = st.detail || {};
    let cards = Array.isArray(d.current_trick) ? d.current_trick : [];
    let last = false, winner = null;
    if (!cards.length && st.last_trick && Array.isArray(st.last_trick.cards) &&
        (d.hand === undefined || st.last_trick.hand === d.hand || st.last_trick.hand === d.hand - 1)) {
      cards = st.last_trick.cards; last = true; winner = st.last_trick.winner;
    }
    const angles = seatAngles();
    const turn = st.turn ? st.turn.seat : null;
    let html = `<div class="felt ${last ? "lasttrick" : ""}" id="trick" data-count="${cards.length}">`;
    for (let s = 0; s < table.players; s++) {
      const a = (angles[s] || 0) * Math.PI / 180, cos = Math.cos(a), sin = Math.sin(a);
      const x = 50 + 47 * cos, y = 50 + 46 * sin;                 // a point on the rim (%)
      const tx = -50 - 50 * cos, ty = -50 - 50 * sin;             // the block's outer edge on it
      const vertical = Math.abs(sin) >= Math.abs(cos) - 1e-9;
      const inward = vertical ? (sin > 0 ? "up" : "down") : (cos > 0 ? "left" : "right");
      const dealer = st.dealer === s ? `<span class="chip dealer" title="dealer">D</span>` : "";
      const play = cards.find((c) => c.seat === s);
      const cardHtml = play ? `<div class="played${winner === s ? " winner" : ""}">${card(play.card)}</div>` :
        "";
      html += `<div class="seatblock ${inward}" style="left:${x.toFixed(2)}%;top:${y.toFixed(2)}%;` +
        `transform:translate(${tx.toFixed(1)}%,${ty.toFixed(1)}%)">` +
        `<div class="seat${turn === s ? " turn" : ""}" data-seat="${s}">` +
        `<span class="seatname">${esc(table.seatName(s))}</span>${dealer}</div>${cardHtml}</div>`;
    }
    if (last) html += `<div class="feltnote">last trick${winner !== null && winner !== undefined ? " — " + esc(table.seatName(winner)) : ""}</div>`;
    return html + `</div>`;
  }

  function turnText(st) {
    if (st.finished) return st.match_winner !== null && st.match_winner !== undefined ?
      `${table.sideName(st.match_winner)} win the match` : "Match over";
    if (!st.turn) return "";
    return CT.turnText(st.game, st.turn.expects, table.seatName(st.turn.seat));
  }

  function notices(st) {
    let html = "";
    if (table.status === "offline") html += `<div class="notice bad">Table offline — showing the last known state</div>`;
    if (table.status === "stopped") html += `<div class="notice">Table stopped</div>`;
    if (table.waitFor !== null) html += `<div class="notice">Catching up…</div>`;
    if (st && st.status === "confirm" && st.pending) {
      html += `<div class="notice" id="checking">` +
        CT.evidenceThumb(table.id, st.pending.evidence, `The card at ${table.seatName(st.pending.seat)} being checked`) +
        `Checking a card at ${esc(table.seatName(st.pending.seat))}…</div>`;
    }
    if (st && st.fault) html += `<div class="notice bad">${esc(st.fault.message || st.fault.code)}</div>`;
    return html;
  }

  function renderTV() {
    const st = table.state;
    const root = CT.el("app");
    const head = `<header><span class="game">${esc(CT.gameName(table.game))}</span>` +
      `<span class="tablename">${esc((table.meta && table.meta.name) || table.id || "")}</span>` +
      (st && st.detail && st.detail.hand ? `<span class="handno" id="handno">Hand ${esc(st.detail.hand)}` +
        (st.detail.trick ? ` · trick ${esc(st.detail.trick)}` : "") + `</span>` : "") + statusPill() + `</header>`;
    if (!st || !st.game) {
      root.innerHTML = head + notices(st) + `<div class="waiting">${table.id ? "Waiting for a match at " + esc(table.id) : "Waiting for a table…"}</div>`;
      return;
    }
    const sides = table.sides(), games = gamesWon(st), scores = st.scores || [];
    const turnSide = st.turn ? table.sideOfSeat(st.turn.seat) : null;
    const dealerSide = table.sideOfSeat(st.dealer);
    const sideHtml = sides.map((s, i) => {
      const gw = games ? `<div class="games" id="games-${i}" data-games="${esc(games[i])}">` +
        `${"●".repeat(Math.max(0, games[i] || 0))}<span class="dim">${"○".repeat(Math.max(0, ((st.options || {}).games_to_win || 0) - (games[i] || 0)))}</span>` +
        ` <span class="gameslabel">games ${esc(games[i])}</span></div>` : "";
      const badges = (dealerSide === i ? `<span class="chip dealer">dealer</span>` : "") +
        (turnSide === i && !st.finished ? `<span class="chip turn">to play</span>` : "") +
        (st.match_winner === i ? `<span class="chip win">winner</span>` : "");
      return `<section class="side side${i}${turnSide === i ? " active" : ""}">` +
        `<div class="sidename">${esc(s.name)}</div>` +
        `<div class="score" id="score-${i}">${esc(scores[i] !== undefined ? scores[i] : "–")}</div>${gw}` +
        `<div class="badges">${badges}</div></section>`;
    }).join("");
    root.innerHTML = head + notices(st) +
      `<div class="sides n${sides.length}">${sideHtml}</div>` +
      `<div class="middle">${trickArea(st)}<aside class="info">` +
      `<div class="turnline" id="turn">${esc(turnText(st))}</div>` +
      // the banner's own slot, always there: it covers nothing and moves nothing
      `<div id="flash" class="flashslot"></div>` +
      `<div class="panel" id="gamepanel">${gamePanel(st)}</div>` +
      // Troccas' sheet already lists the hands with their results
      (st.game === "troccas" ? "" : `<div class="panel">${handsList(st)}</div>`) + `</aside></div>`;
    showFlash();
  }

  function renderOverlay() {
    const st = table.state;
    const root = CT.el("app");
    if (!st || !st.game) {
      root.innerHTML = `<div class="obar"><span class="oname">${esc(table.id || "")}</span>${statusPill()}</div>`;
      return;
    }
    const sides = table.sides(), games = gamesWon(st), scores = st.scores || [];
    const d = st.detail || {};
    const trick = (Array.isArray(d.current_trick) ? d.current_trick : []).map((c) => card(c.card, "mini")).join("");
    const turnSide = st.turn ? table.sideOfSeat(st.turn.seat) : null;
    const sideHtml = sides.map((s, i) =>
      `<span class="oside${turnSide === i ? " active" : ""}${table.sideOfSeat(st.dealer) === i ? " dealing" : ""}">` +
      `<span class="oname">${esc(s.name)}</span><span class="oscore" id="score-${i}">${esc(scores[i])}</span>` +
      (games ? `<span class="ogames" id="games-${i}" data-games="${esc(games[i])}" title="games won">` +
        `<span class="olabel">games</span> ${esc(games[i])}</span>` : "") +
      `</span>`).join("");
    const stake = st.game === "trionfetti" ? (d.comanda && d.comanda.text ? "“" + d.comanda.text + "”" : "") : stakeText(st.game, d);
    root.innerHTML = `<div class="obar${sides.length > 2 ? " many" : ""}"><span class="ogame" id="ogame">${esc(CT.gameName(st.game))}</span>${sideHtml}<span class="otrick" id="trick">${trick}</span>` +
      `<span class="oinfo"><span class="ostake" id="stake">${esc(stake)}</span><span class="oturn" id="turn">${esc(turnText(st))}</span></span>` +
      (table.status === "offline" ? statusPill() : "") + `</div><div id="flash"></div>`;
    showFlash();
  }

  function flashText(j) {
    switch (j.judgment) {
      case "trick": return j.winner === null || j.winner === undefined ? "Trick tied" : `Trick to ${table.seatName(j.winner)}`;
      case "hand": return j.winner === null || j.winner === undefined ? "Hand: nobody scores" :
        `${table.sideName(j.winner)} +${j.points}`;
      case "call": return `${table.seatName(j.seat)}: ${j.call}${j.stake !== undefined ? " — " + j.stake : ""}`;
      case "game": return `Game to ${table.sideName(j.winner)}`;
      case "match": return `${table.sideName(j.winner)} win the match!`;
      case "ranking": return "Comanda declared";
      default: return "";
    }
  }

  function showFlash() {
    const f = table.flash, el = CT.el("flash");
    if (!f || !el || Date.now() - f.at > 3500) return;
    el.innerHTML = `<div class="flash">${esc(flashText(f.judgment))}</div>`;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => { table.flash = null; render(); }, 3500 - (Date.now() - f.at));
  }

  function render() {
    (cfg.overlay ? renderOverlay : renderTV)();
    // What was on screen at each state (seq → score texts): lets tests and kiosks check that
    // every hand's score was shown, however fast the table plays.
    if (table.seq !== null && (!CT.shown.length || CT.shown[CT.shown.length - 1][0] !== table.seq)) {
      CT.shown.push([table.seq, Array.from(doc.querySelectorAll("[id^=score-]")).map((e) => e.textContent.trim())]);
      if (CT.shown.length > 2000) CT.shown.splice(0, 1000);
    }
    const b = doc.body;
    b.dataset.seq = table.seq === null ? "" : String(table.seq);
    b.dataset.status = table.status || "";
    b.dataset.conn = conn;
    b.dataset.table = table.id || "";
  }

  function onMessage(topic, text, retained) {
    const t = CT.splitTopic(topic);
    if (!t) return;
    if (!table.id) {                       // no table chosen: the first one that shows up
      if (t.kind !== "meta" && t.kind !== "state" && t.kind !== "status") return;
      table.id = t.table;
    }
    if (t.table !== table.id) return;
    if (table.apply(t.kind, text, retained)) render();
  }

  async function main() {
    cfg = await CT.loadConfig();
    const b = doc.body;
    if (cfg.overlay) {
      b.classList.add("overlay");
      if (cfg.chroma) b.style.background = cfg.chroma;
    } else {
      b.classList.add("tv");
    }
    table = new CT.Table(cfg.table);
    CT.table = table;
    CT.render = render;
    render();
    const topics = cfg.table ? [CT.ROOT + cfg.table + "/#"] : [CT.ROOT + "+/#"];
    const client = new CT.MqttClient({
      url: cfg.url, username: cfg.username, password: cfg.password, topics, keepalive: cfg.keepalive,
      onMessage: CT.delayed(cfg.delay, onMessage),
      onState: (s) => {
        conn = s;
        if (s === "connected") doc.body.dataset.connects = String(+(doc.body.dataset.connects || 0) + 1);
        render();
      },
    });
    CT.client = client;
    client.start();
  }

  global.addEventListener("DOMContentLoaded", main);
})(window);
