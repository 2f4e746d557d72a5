/* A small MQTT 3.1.1 client over WebSocket, for read-only displays.
 *
 * No dependencies. Speaks the "mqtt" WebSocket subprotocol (Mosquitto's websockets
 * listener): CONNECT with username/password, SUBSCRIBE (QoS up to 1), receives PUBLISH
 * (QoS 0, 1 and 2; retained ones flagged), answers PUBACK/PUBREC/PUBCOMP, keeps the link
 * alive with PINGREQ, and reconnects with a capped exponential back-off. It never
 * publishes: a display account is read-only.
 *
 *   const c = new CT.MqttClient({url, username, password, topics: ["a/#"],
 *                               onMessage(topic, text, retained) {}, onState(s) {}});
 *   c.start();
 *
 * onState receives "connecting", "connected", "disconnected" or "refused: <reason>".
 */
(function (global) {
  "use strict";
  const CT = global.CT = global.CT || {};
  const enc = new TextEncoder();
  const dec = new TextDecoder("utf-8");

  const REFUSED = {1: "bad protocol version", 2: "client id rejected", 3: "server unavailable",
                   4: "bad user name or password", 5: "not authorised"};

  function str(s) {                       // UTF-8 string with its 2-byte length
    const b = enc.encode(s);
    const out = new Uint8Array(2 + b.length);
    out[0] = b.length >> 8; out[1] = b.length & 255; out.set(b, 2);
    return out;
  }

  function concat(parts) {
    let n = 0;
    for (const p of parts) n += p.length;
    const out = new Uint8Array(n);
    let i = 0;
    for (const p of parts) { out.set(p, i); i += p.length; }
    return out;
  }

  function packet(first, body) {          // fixed header + remaining length + body
    const len = [];
    let x = body.length;
    do { let d = x % 128; x = Math.floor(x / 128); if (x > 0) d |= 128; len.push(d); } while (x > 0);
    return concat([Uint8Array.of(first), Uint8Array.from(len), body]);
  }

  class MqttClient {
    constructor(opts) {
      this.url = opts.url;
      this.username = opts.username || "";
      this.password = opts.password || "";
      this.topics = opts.topics || [];
      // 60 s: the broker drops us after 90 s of silence; a hidden tab's timers may be
      // throttled to once a minute, and pings every 30 s still arrive in time.
      this.keepalive = opts.keepalive || 60;          // seconds
      this.minBackoff = opts.minBackoff || 500;       // ms
      this.maxBackoff = opts.maxBackoff || 8000;      // ms
      this.clientId = opts.clientId || ("ct-display-" + Math.random().toString(36).slice(2, 10));
      this.onMessage = opts.onMessage || function () {};
      this.onState = opts.onState || function () {};
      this.ws = null;
      this.buf = new Uint8Array(0);
      this.backoff = this.minBackoff;
      this.pid = 1;
      this.stopped = false;
      this.timers = {};
      this.refused = null;
    }

    start() { this.stopped = false; this._open(); }

    stop() {
      this.stopped = true;
      this._clearTimers();
      if (this.ws) { try { this._send(Uint8Array.of(0xe0, 0)); this.ws.close(); } catch (e) { /* closed */ } }
    }

    _clearTimers() {
      for (const k of Object.keys(this.timers)) { clearTimeout(this.timers[k]); clearInterval(this.timers[k]); }
      this.timers = {};
    }

    _open() {
      this._clearTimers();
      this.onState(this.refused || "connecting");
      let ws;
      try {
        ws = new WebSocket(this.url, ["mqtt"]);
      } catch (e) {
        this.onState("disconnected");
        return this._retry();
      }
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      this.buf = new Uint8Array(0);
      ws.onopen = () => this._send(this._connectPacket());
      ws.onmessage = (ev) => this._receive(new Uint8Array(ev.data));
      ws.onerror = () => { /* onclose follows */ };
      ws.onclose = () => {
        if (this.ws !== ws) return;
        this.ws = null;
        this._clearTimers();
        // A refusal stays on show while we keep retrying (someone may fix the account).
        this.onState(this.refused || "disconnected");
        if (!this.stopped) this._retry();
      };
      // A broker that accepts TCP but never answers must not hang us.
      this.timers.connack = setTimeout(() => { try { ws.close(); } catch (e) { /* */ } }, 10000);
    }

    _retry() {
      const wait = this.backoff * (0.75 + Math.random() * 0.5);
      this.backoff = Math.min(this.backoff * 2, this.maxBackoff);
      this.timers.retry = setTimeout(() => this._open(), wait);
    }

    _send(bytes) {
      if (this.ws && this.ws.readyState === 1) this.ws.send(bytes);
    }

    _connectPacket() {
      let flags = 0x02;                                    // clean session
      const payload = [str(this.clientId)];
      if (this.username) { flags |= 0x80; payload.push(str(this.username)); }
      if (this.username && this.password) { flags |= 0x40; payload.push(str(this.password)); }
      const vh = concat([str("MQTT"), Uint8Array.of(4, flags, this.keepalive >> 8, this.keepalive & 255)]);
      return packet(0x10, concat([vh, ...payload]));
    }

    _subscribe() {
      if (!this.topics.length) return;
      const id = this._nextId();
      const parts = [Uint8Array.of(id >> 8, id & 255)];
      for (const t of this.topics) { parts.push(str(t)); parts.push(Uint8Array.of(1)); }
      this._send(packet(0x82, concat(parts)));
    }

    _nextId() { this.pid = this.pid % 65535 + 1; return this.pid; }

    _receive(chunk) {
      this.buf = this.buf.length ? concat([this.buf, chunk]) : chunk;
      for (;;) {
        const b = this.buf;
        if (b.length < 2) return;
        let len = 0, mul = 1, i = 1, d;
        do {
          if (i >= b.length) return;                     // length not complete yet
          d = b[i++]; len += (d & 127) * mul; mul *= 128;
        } while (d & 128);
        if (b.length < i + len) return;                  // body not complete yet
        const pkt = b.subarray(i, i + len);
        const first = b[0];
        this.buf = b.slice(i + len);
        this._handle(first, pkt);
      }
    }

    _handle(first, body) {
      const type = first >> 4;
      if (type === 2) {                                  // CONNACK
        clearTimeout(this.timers.connack);
        const rc = body[1];
        if (rc !== 0) {
          this.refused = "refused: " + (REFUSED[rc] || rc);
          this.onState(this.refused);
          try { this.ws.close(); } catch (e) { /* */ }
          return;
        }
        this.backoff = this.minBackoff;
        this.refused = null;
        this.onState("connected");
        this._subscribe();
        this._startPing();
      } else if (type === 3) {                           // PUBLISH
        const qos = (first >> 1) & 3, retained = !!(first & 1);
        const tlen = (body[0] << 8) | body[1];
        const topic = dec.decode(body.subarray(2, 2 + tlen));
        let p = 2 + tlen, id = 0;
        if (qos > 0) { id = (body[p] << 8) | body[p + 1]; p += 2; }
        const text = dec.decode(body.subarray(p));
        if (qos === 1) this._send(Uint8Array.of(0x40, 2, id >> 8, id & 255));
        if (qos === 2) this._send(Uint8Array.of(0x50, 2, id >> 8, id & 255));
        try { this.onMessage(topic, text, retained); } catch (e) { console.error(e); }
      } else if (type === 6) {                           // PUBREL → PUBCOMP
        this._send(Uint8Array.of(0x70, 2, body[0], body[1]));
      } else if (type === 13) {                          // PINGRESP
        clearTimeout(this.timers.pong);
      }
      // SUBACK (9) and anything else: nothing to do.
    }

    _startPing() {
      this.timers.ping = setInterval(() => {
        this._send(Uint8Array.of(0xc0, 0));
        clearTimeout(this.timers.pong);
        // No answer within half a keepalive: the link is dead even if the socket is not.
        this.timers.pong = setTimeout(() => { try { this.ws.close(); } catch (e) { /* */ } },
                                      this.keepalive * 500);
      }, this.keepalive * 1000 * 0.5);
    }
  }

  CT.MqttClient = MqttClient;

  /* Topic helpers shared by the views. */
  CT.ROOT = "cardtable/v1/tables/";
  CT.splitTopic = function (topic) {        // → {table, kind} or null
    if (!topic.startsWith(CT.ROOT)) return null;
    const rest = topic.slice(CT.ROOT.length);
    const i = rest.indexOf("/");
    if (i < 0) return null;
    return {table: rest.slice(0, i), kind: rest.slice(i + 1)};
  };
})(typeof window !== "undefined" ? window : globalThis);
