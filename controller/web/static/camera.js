/* The referee's page for one table (camera.html?table=ID): what the camera saw.
 *
 * A card waiting for confirmation is shown large (the camera's crop and the whole frame), and
 * below it the last cards the camera reported, newest first, each a thumbnail that opens large.
 * Everything comes from the retained `state` (its `pending.evidence` and `evidence` list,
 * docs/mqtt.md); the pictures from this web server (evidence/<table>/<name>). Read-only: the
 * referee confirms or rejects with the seat's button or the tablet's commands.
 */
(function (global) {
  "use strict";
  const CT = global.CT;
  const esc = CT.esc;
  const doc = global.document;
  let cfg, table, conn = "connecting";

  const REASONS = {low_confidence: "the camera is unsure", duplicate_card: "already played", not_in_deck: "not in this deck",
                   unknown_card: "unknown card", out_of_turn: "out of turn", face_down: "face down", no_seat: "no seat"};

  function cardLabel(e) {
    if (e.face_down) return "face down";
    return e.card ? `${CT.cardSVG(e.card, table.deck)}<span>${esc(e.card)}</span>` : "not identified";
  }

  function pendingHtml(st) {
    const p = st.pending;
    if (!p) return `<div class="notice" id="nopending">No card waits for confirmation.</div>`;
    const crop = CT.evidenceUrl(table.id, p.evidence), frame = CT.evidenceUrl(table.id, p.evidence, true);
    const what = `Card to confirm at ${esc(table.seatName(p.seat))}` + (p.card ? ` — the camera read ${esc(p.card)}` : "") +
      ` (${esc(REASONS[p.reason] || p.reason || "")})`;
    const pics = crop ? `<div class="evpics" id="pendingpics">` +
      `<img class="evthumb big" src="${esc(crop)}" alt="the card as the camera saw it" data-table="${esc(table.id)}" ` +
      `data-evidence="${esc(p.evidence)}" data-caption="${what.replace(/"/g, "&quot;")}" onerror="this.classList.add('gone')">` +
      `<img class="evframe" src="${esc(frame)}" alt="the whole table at that moment" onerror="this.classList.add('gone')"></div>` :
      `<div class="dim">No picture for this card.</div>`;
    return `<section class="pending" id="pending"><h2>${what}</h2>${pics}</section>`;
  }

  function listHtml(st) {
    const list = (Array.isArray(st.evidence) ? st.evidence : []).slice().reverse();
    if (!list.length) return `<div class="dim">No camera cards yet in this match.</div>`;
    return `<h3>Last cards the camera saw</h3><ul class="evlist" id="evlist">` + list.map((e) => {
      const caption = `${table.seatName(e.seat)}: ${e.card || (e.face_down ? "face down" : "not identified")}`;
      const how = e.pending ? `to confirm (${REASONS[e.reason] || e.reason || ""})` : e.src === "confirm" ? "confirmed" : "judged";
      return `<li data-seq="${esc(e.seq)}">${CT.evidenceThumb(table.id, e.evidence, caption)}` +
        `<span class="evseat">${esc(table.seatName(e.seat))}</span><span class="evcard">${cardLabel(e)}</span>` +
        `<span class="dim">${esc(how)} · #${esc(e.seq)}</span></li>`;
    }).join("") + `</ul>`;
  }

  function render() {
    const st = table.state;
    const root = CT.el("app");
    const pill = `<span id="status" class="pill ${esc(conn === "connected" ? table.status || "unknown" : "offline")}">` +
      `${esc(conn === "connected" ? table.status || "unknown" : "no broker")}</span>`;
    const head = `<header><span class="game">What the camera saw</span>` +
      `<span class="tablename">${esc((table.meta && table.meta.name) || table.id || "")}</span>${pill}</header>`;
    root.innerHTML = head + (st ? `<main class="cammain">${pendingHtml(st)}${listHtml(st)}</main>` :
      `<div class="waiting">${table.id ? "Waiting for " + esc(table.id) : "Waiting for a table…"}</div>`);
    const b = doc.body;
    b.dataset.seq = table.seq === null ? "" : String(table.seq);
    b.dataset.conn = conn;
    b.dataset.table = table.id || "";
  }

  function onMessage(topic, text, retained) {
    const t = CT.splitTopic(topic);
    if (!t) return;
    if (!table.id) {
      if (t.kind !== "meta" && t.kind !== "state" && t.kind !== "status") return;
      table.id = t.table;
    }
    if (t.table === table.id && table.apply(t.kind, text, retained)) render();
  }

  async function main() {
    cfg = await CT.loadConfig();
    table = new CT.Table(cfg.table);
    CT.table = table;
    render();
    const topics = cfg.table ? [CT.ROOT + cfg.table + "/#"] : [CT.ROOT + "+/#"];
    const client = new CT.MqttClient({
      url: cfg.url, username: cfg.username, password: cfg.password, topics, keepalive: cfg.keepalive,
      onMessage, onState: (s) => { conn = s; render(); },
    });
    CT.client = client;
    client.start();
  }

  global.addEventListener("DOMContentLoaded", main);
})(window);
