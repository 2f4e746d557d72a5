/* What the scoreboard and the dashboard share: page parameters, the table model built
 * from the retained topics (docs/mqtt.md), names and sides, and small formatting helpers.
 */
(function (global) {
  "use strict";
  const CT = global.CT = global.CT || {};

  /* Page parameters: the controller's config.json (fetched relative to the page), then
   * the query string on top. Query keys: broker (ws URL), user, pass, table, delay
   * (seconds), overlay=1, chroma=RRGGBB, stale (seconds), config (another JSON URL, or 0
   * to skip it). */
  CT.loadConfig = async function () {
    const q = new URLSearchParams(global.location.search);
    let file = {};
    const from = q.get("config");
    if (from !== "0" && global.location.protocol.startsWith("http")) {
      try {
        const r = await fetch(from || "config.json", {cache: "no-store"});
        if (r.ok) file = await r.json();
      } catch (e) { /* a plain web server without the endpoint: query string only */ }
    }
    const num = (v, d) => (v === null || v === "" || isNaN(parseFloat(v)) ? d : parseFloat(v));
    const host = global.location.hostname || "localhost";
    const chroma = (q.get("chroma") || "").replace(/^#/, "");
    const cfg = {
      url: q.get("broker") || file.ws_url || `ws://${host}:9001/`,
      username: q.get("user") !== null ? q.get("user") : (file.username || ""),
      password: q.get("pass") !== null ? q.get("pass") : (file.password || ""),
      root: file.root || CT.ROOT,
      tables: Array.isArray(file.tables) ? file.tables : [],
      table: q.get("table") || null,
      delay: Math.max(0, num(q.get("delay"), 0)),
      overlay: ["1", "true", "yes"].includes((q.get("overlay") || "").toLowerCase()),
      chroma: /^[0-9a-fA-F]{6}$/.test(chroma) ? "#" + chroma : null,
      stale: num(q.get("stale"), 120),
      keepalive: Math.max(2, Math.min(600, num(q.get("keepalive"), 60))),
    };
    if (!cfg.table && cfg.tables.length) cfg.table = cfg.tables[0];
    CT.ROOT = cfg.root;
    return cfg;
  };

  /* Hold every message back by `seconds` (public overlays), keeping their order. */
  CT.delayed = function (seconds, fn) {
    if (!seconds) return fn;
    const queue = [];
    let timer = null;
    function pump() {
      timer = null;
      const now = Date.now();
      while (queue.length && queue[0].at <= now) fn.apply(null, queue.shift().args);
      if (queue.length) timer = setTimeout(pump, queue[0].at - now);
    }
    return function () {
      queue.push({at: Date.now() + seconds * 1000, args: Array.from(arguments)});
      if (!timer) timer = setTimeout(pump, seconds * 1000);
    };
  };

  /* One table, rebuilt from status/meta/state and followed by events.
   *   table.apply(kind, text, retained) → true if something visible changed.
   * Rules (docs/mqtt.md): a `state` with a lower seq than the one held is ignored, except
   * a retained one (a fresh subscription after a reconnect is a rebuild) or the first after
   * the table comes back `online` (a restart, perhaps on a repaired journal); an event whose
   * seq skips one means something was missed, so events are ignored until a `state` at
   * least that new arrives. Events only animate; the state is the truth. */
  class Table {
    constructor(id) {
      this.id = id;
      this.status = null;          // online | stopped | offline | null (unknown)
      this.meta = null;
      this.state = null;
      this.seq = null;
      this.waitFor = null;         // seq of the state we need after a gap
      this.lastHeard = null;       // Date.now() of the last message about this table
      this.flash = null;           // {kind, judgment, at} the latest event worth showing
      this.alert = null;
      this._seen = new Set();      // QoS 1 duplicates
    }

    apply(kind, text, retained) {
      this.lastHeard = Date.now();
      if (kind === "status") {
        let s = text.trim();
        if (s.startsWith("{")) { try { s = JSON.parse(s).status; } catch (e) { /* bare word */ } }
        // A table that comes back online was restarted: its journal may have been repaired
        // (`cardtable journal repair`, docs/controller.md), so its seq may be lower than the
        // one held. Its next state is the truth, whatever its seq.
        if (s === "online" && this.status !== "online") { this.seq = null; this.waitFor = null; }
        this.status = s || null;
        return true;
      }
      let obj;
      try { obj = text ? JSON.parse(text) : null; } catch (e) { return false; }
      if (kind === "meta") { this.meta = obj; return true; }
      if (kind === "state") return this._state(obj, retained);
      if (kind === "events") return this._event(obj);
      if (kind === "alerts") { this.alert = {a: obj, at: Date.now()}; return true; }
      return false;
    }

    _state(obj, retained) {
      if (!obj) { this.state = null; return true; }
      const seq = typeof obj.seq === "number" ? obj.seq : null;
      if (seq !== null && this.seq !== null && seq < this.seq && !retained) return false;
      this.state = obj;
      this.seq = seq;
      if (this.waitFor !== null && (seq === null || seq >= this.waitFor)) this.waitFor = null;
      return true;
    }

    _event(ev) {
      if (!ev || typeof ev.seq !== "number" || !this.state) return false;
      // De-duplicate QoS 1 redeliveries (same seq, same judgment).
      const key = JSON.stringify(ev);
      if (this._seen.has(key)) return false;
      this._seen.add(key);
      if (this._seen.size > 500) this._seen = new Set(Array.from(this._seen).slice(-200));
      if (this.waitFor !== null) {
        if (ev.seq > this.waitFor) this.waitFor = ev.seq;
        return false;
      }
      if (this.seq !== null && ev.seq > this.seq + 1) {   // a gap: wait for the next snapshot
        this.waitFor = ev.seq;
        return true;
      }
      if (this.seq !== null && ev.seq < this.seq) return false;  // old news
      // Show it at once; the state with this seq follows and agrees.
      const st = this.state;
      if (ev.judgment === "score" && Array.isArray(ev.scores)) st.scores = ev.scores.slice();
      if (ev.judgment === "game" && Array.isArray(ev.games) && st.detail) st.detail.games = ev.games.slice();
      if (["trick", "hand", "call", "game", "match", "ranking"].includes(ev.judgment)) {
        this.flash = {judgment: ev, at: Date.now()};
      }
      return true;
    }

    get players() {
      return (this.state && this.state.players) || (this.meta && this.meta.players) || 4;
    }

    get game() {
      return (this.state && this.state.game) || (this.meta && this.meta.game) || null;
    }

    get deck() {
      return (this.meta && this.meta.deck) || CT.deckOfGame(this.game);
    }

    seatName(seat) {
      const st = this.state, m = this.meta;
      if (st && Array.isArray(st.names) && st.names[seat]) return st.names[seat];
      if (m && Array.isArray(m.seats)) {
        const s = m.seats.find((x) => x && x.seat === seat);
        if (s && s.name) return s.name;
      }
      return "Seat " + seat;
    }

    /* Sides that score: teams of two (4 or 6 players) or each seat alone (CONTRACT §2). */
    sides() {
      const n = this.players;
      let teams = this.meta && Array.isArray(this.meta.teams) && this.meta.teams.length ? this.meta.teams : null;
      if (!teams) {
        if (n === 4 || n === 6) {
          teams = [[], []];
          for (let s = 0; s < n; s++) teams[s % 2].push(s);
        } else {
          teams = [];
          for (let s = 0; s < n; s++) teams.push([s]);
        }
      }
      const named = teams.flat().some((s) => this.seatName(s) !== "Seat " + s);
      return teams.map((seats, i) => ({
        index: i, seats,
        name: teams.length === 2 && !named ? "Team " + "AB"[i] : seats.map((s) => this.seatName(s)).join(" & "),
      }));
    }

    sideOfSeat(seat) {
      const side = this.sides().find((t) => t.seats.includes(seat));
      return side ? side.index : null;
    }

    sideName(i) {
      const s = this.sides()[i];
      return s ? s.name : "nobody";
    }
  }

  CT.Table = Table;

  /* Whose turn, as a sentence: "Anna to play a card or bid". Each kind of input the engine
   * `expects` (CONTRACT §3.2 `turn`) is a verb phrase; a game may word a kind its own way. */
  const ACTS = {card: "play a card", call: "call", answer: "answer", decide: "decide: play or run",
                comanda: "declare the comanda", deal_option: "keep, pass or burn the deal",
                discard: "discard", exchange: "exchange a card"};
  const GAME_ACTS = {
    vitou: {call: "bid", answer: "refuse it", decide: "decide: play or run"},
    truco: {call: "call truco", answer: "accept, refuse or raise", decide: "decide: play or run the hand of eleven"},
    trionfetti: {call: "call vagaresto", answer: "accept or refuse the vagaresto"},
    troccas: {call: "call boub", discard: "discard the scart"},
  };
  CT.turnText = function (game, expects, name) {
    const g = GAME_ACTS[game] || {};
    const ex = expects || [];
    const acts = ex.map((e) => {
      if (game === "vitou" && e === "call" && ex.includes("answer")) return "raise the bid";
      return g[e] || ACTS[e] || e;
    });
    if (!acts.length) acts.push("act");
    const list = acts.length === 1 ? acts[0] : acts.slice(0, -1).join(", ") + " or " + acts[acts.length - 1];
    return `${name} to ${list}`;
  };

  CT.GAME_NAMES = {vitou: "Vitou", truco: "Truco", trionfetti: "Trionfetti", troccas: "Troccas"};
  CT.gameName = (g) => CT.GAME_NAMES[g] || (g ? g[0].toUpperCase() + g.slice(1) : "No match yet");

  CT.ago = function (ms) {
    const s = Math.round(ms / 1000);
    if (s < 60) return s + " s";
    if (s < 3600) return Math.round(s / 60) + " min";
    return Math.round(s / 3600) + " h";
  };

  CT.el = (id) => global.document.getElementById(id);

  /* Evidence: the camera's picture of a card event (docs/scoreboard.md), served by the table's
   * web server under evidence/<table>/<name>. Only names the table makes are turned into URLs
   * (controller/evidence.py NAME); the whole frame lies beside the crop. */
  const EVIDENCE_NAME = /^m\d{4,6}\/\d{6,9}-(placed|needs_confirmation)\.jpg$/;
  CT.evidenceUrl = function (tableId, name, frame) {
    if (typeof name !== "string" || !EVIDENCE_NAME.test(name) || !tableId) return null;
    return `evidence/${encodeURIComponent(tableId)}/${frame ? name.replace(/\.jpg$/, ".frame.jpg") : name}`;
  };

  /* A thumbnail of the crop; a click (or Enter) shows crop and frame large. A picture that is
   * gone (rotated away, or never written) hides itself. */
  CT.evidenceThumb = function (tableId, name, caption, cls) {
    const url = CT.evidenceUrl(tableId, name);
    if (!url) return "";
    return `<img class="evthumb ${cls || ""}" src="${CT.esc(url)}" alt="what the camera saw" tabindex="0" ` +
      `data-table="${CT.esc(tableId)}" data-evidence="${CT.esc(name)}" data-caption="${CT.esc(caption || "")}" ` +
      `onerror="this.classList.add('gone')">`;
  };

  CT.showEvidence = function (tableId, name, caption) {
    const doc = global.document;
    let box = doc.getElementById("evbox");
    if (!box) {
      box = doc.createElement("div");
      box.id = "evbox";
      box.addEventListener("click", () => { box.hidden = true; });
      doc.body.appendChild(box);
    }
    const crop = CT.evidenceUrl(tableId, name), frame = CT.evidenceUrl(tableId, name, true);
    if (!crop) return;
    box.innerHTML = `<div class="evcap">${CT.esc(caption || "What the camera saw")} <span class="dim">(click to close)</span></div>` +
      `<div class="evpics"><img class="evcrop" src="${CT.esc(crop)}" alt="the card as the camera saw it">` +
      `<img class="evframe" src="${CT.esc(frame)}" alt="the whole table at that moment"></div>`;
    box.hidden = false;
  };

  /* One listener for every thumbnail a page draws (pages redraw their HTML often). */
  function openThumb(e) {
    const t = e.target;
    if (!t || !t.classList || !t.classList.contains("evthumb")) return;
    if (e.type === "keydown" && e.key !== "Enter") return;
    CT.showEvidence(t.dataset.table, t.dataset.evidence, t.dataset.caption);
  }
  if (global.document) {
    global.document.addEventListener("click", openThumb);
    global.document.addEventListener("keydown", openThumb);
  }
})(typeof window !== "undefined" ? window : globalThis);
