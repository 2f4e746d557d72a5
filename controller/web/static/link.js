/* The displays' broker link: MQTT.js (vendor/mqtt.min.js, pinned in vendor/README.md)
 * behind the small interface the views use. Read only: it subscribes and never publishes.
 *
 *   const c = new CT.MqttClient({url, username, password, keepalive, topics: ["a/#"],
 *                               onMessage(topic, text, retained) {}, onState(s) {}});
 *   c.start();
 *
 * onState receives "connecting", "connected", "disconnected" or "refused: <reason>".
 * MQTT 3.1.1, clean session, QoS 1 subscriptions; MQTT.js answers QoS 1/2 deliveries,
 * pings every `keepalive` seconds and reconnects (resubscribing) every `reconnect` ms,
 * also after a refused login, whose reason stays on screen meanwhile.
 */
(function (global) {
  "use strict";
  const CT = global.CT = global.CT || {};
  const dec = new TextDecoder("utf-8");

  // CONNACK return codes of MQTT 3.1.1 (MQTT.js reports them as error.code).
  const REFUSED = {1: "bad protocol version", 2: "client id rejected", 3: "server unavailable",
                   4: "bad user name or password", 5: "not authorised"};
  // 2 s between attempts: a TV on a restarted broker is back within a few seconds, and a
  // refused display does not hammer the broker.
  const RECONNECT_MS = 2000;

  class MqttClient {
    constructor(opts) {
      this.opts = opts;
      this.onMessage = opts.onMessage || function () {};
      this.onState = opts.onState || function () {};
      this.state = "disconnected";
      this.client = null;
    }

    _set(s, force) {
      // a refused login stays on screen until a connection succeeds
      if (s === this.state || (!force && this.state.startsWith("refused"))) return;
      this.state = s;
      this.onState(s);
    }

    start() {
      const o = this.opts;
      this._set("connecting");
      const c = this.client = global.mqtt.connect(o.url, {
        protocolVersion: 4, clean: true, keepalive: o.keepalive || 60,
        username: o.username || undefined, password: o.password || undefined,
        clientId: o.clientId || ("ct-display-" + Math.random().toString(36).slice(2, 10)),
        reconnectPeriod: o.reconnect || RECONNECT_MS, connectTimeout: 10000,
        reconnectOnConnackError: true, resubscribe: true,
      });
      c.on("connect", () => {
        c.subscribe(o.topics || [], {qos: 1}, () => {});
        this._set("connected", true);
      });
      c.on("reconnect", () => this._set("connecting"));
      c.on("close", () => this._set("disconnected"));
      c.on("error", (err) => { if (err && REFUSED[err.code]) this._set("refused: " + REFUSED[err.code], true); });
      c.on("message", (topic, payload, packet) => {
        this.onMessage(topic, typeof payload === "string" ? payload : dec.decode(payload), !!(packet && packet.retain));
      });
    }

    stop() { if (this.client) this.client.end(true); }
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
