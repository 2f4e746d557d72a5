/* Card pictures drawn from the card id alone (CONTRACT §1), as inline SVG.
 *
 * CT.cardSVG(id, deckId, opts) → an <svg> string. `id` is a canonical card id
 * ("hearts/king", "cups/7", "trump/21", "fool"), or null for a card lying face down.
 * French suits get the usual pips; Italian suits (coins, cups, swords, batons) are drawn
 * simply; tarot trumps show their roman numeral; the Fool has a jester's cap. Face cards
 * carry the deck's own letter (F/C/R for Trevigiane, B/C/D/R for the Romansh tarot).
 */
(function (global) {
  "use strict";
  const CT = global.CT = global.CT || {};

  const ROMAN = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
                 "XIII", "XIV", "XV", "XVI", "XVII", "XVIII", "XIX", "XX", "XXI"];

  // Suit shapes in a unit box centred on 0,0 (about -0.5 … 0.5).
  const SHAPES = {
    hearts: {color: "#c62828", svg:
      '<path d="M0 .44C-.12 .3-.5 .06-.5-.18C-.5-.42-.18-.5 0-.26C.18-.5 .5-.42 .5-.18C.5 .06 .12 .3 0 .44Z"/>'},
    diamonds: {color: "#c62828", svg: '<path d="M0-.5L.38 0L0 .5L-.38 0Z"/>'},
    spades: {color: "#111", svg:
      '<path d="M0-.48C.12-.32 .5-.12 .5 .1C.5 .32 .22 .4 .04 .22L.14 .48H-.14L-.04 .22C-.22 .4-.5 .32-.5 .1C-.5-.12-.12-.32 0-.48Z"/>'},
    clubs: {color: "#111", svg:
      '<circle cx="0" cy="-.22" r=".21"/><circle cx="-.23" cy=".1" r=".21"/><circle cx=".23" cy=".1" r=".21"/>' +
      '<path d="M-.05 .05L-.14 .48H.14L.05 .05Z"/>'},
    coins: {color: "#c9971a", svg:
      '<circle r=".46" stroke="#7a5a0a" stroke-width=".05"/><circle r=".3" fill="none" stroke="#7a5a0a" stroke-width=".04"/>' +
      '<circle r=".1" fill="#b71c1c"/>'},
    cups: {color: "#b8432f", svg:
      '<path d="M-.36-.44H.36C.36-.08 .16 .04 .06 .08V.28L.26 .44H-.26L-.06 .28V.08C-.16 .04-.36-.08-.36-.44Z" ' +
      'stroke="#6d1d12" stroke-width=".04"/><rect x="-.36" y="-.44" width=".72" height=".08" fill="#e6b422"/>'},
    swords: {color: "#2f5f8f", svg:
      '<path d="M0-.5L.07-.38V.2H-.07V-.38Z" stroke="#17324d" stroke-width=".03"/>' +
      '<rect x="-.26" y=".18" width=".52" height=".08" rx=".03" fill="#b8860b"/>' +
      '<rect x="-.045" y=".26" width=".09" height=".16" fill="#6d4c26"/><circle cy=".46" r=".06" fill="#b8860b"/>'},
    batons: {color: "#6b8e23", svg:
      '<path d="M-.07 .5L-.13-.34C-.14-.52 .14-.52 .13-.34L.07 .5Z" stroke="#3b4f13" stroke-width=".04"/>' +
      '<circle cx="-.12" cy="-.08" r=".05" fill="#3b4f13"/><circle cx=".11" cy=".14" r=".05" fill="#3b4f13"/>' +
      '<circle cx="-.1" cy=".32" r=".04" fill="#3b4f13"/>'},
  };

  const FRENCH = {jack: "J", queen: "Q", king: "K", ace: "A"};
  const LABELS = {
    "trevigiane-52": {jack: ["F", "Fante"], knight: ["C", "Cavallo"], king: ["R", "Re"], ace: ["A", "Asso"]},
    "tarot-1jj": {jack: ["B", "Buob"], knight: ["C", "Cavagl"], queen: ["D", "Regina"], king: ["R", "Retg"],
                  ace: ["A", ""]},
  };
  const DECK_OF_GAME = {trionfetti: "trevigiane-52", troccas: "tarot-1jj", truco: "french-40", vitou: "french-32"};

  // Pip positions (card is 100 × 140) by count.
  const L = 30, M = 50, R = 70;
  const PIPS = {
    1: [[M, 70]],
    2: [[M, 32], [M, 108]],
    3: [[M, 30], [M, 70], [M, 110]],
    4: [[L, 32], [R, 32], [L, 108], [R, 108]],
    5: [[L, 32], [R, 32], [M, 70], [L, 108], [R, 108]],
    6: [[L, 32], [R, 32], [L, 70], [R, 70], [L, 108], [R, 108]],
    7: [[L, 32], [R, 32], [M, 51], [L, 70], [R, 70], [L, 108], [R, 108]],
    8: [[L, 32], [R, 32], [M, 51], [L, 70], [R, 70], [M, 89], [L, 108], [R, 108]],
    9: [[L, 28], [R, 28], [L, 56], [R, 56], [M, 70], [L, 84], [R, 84], [L, 112], [R, 112]],
    10: [[L, 28], [R, 28], [M, 42], [L, 56], [R, 56], [L, 84], [R, 84], [M, 98], [L, 112], [R, 112]],
  };

  function pip(suit, x, y, size, flip) {
    const s = SHAPES[suit];
    if (!s) return "";
    const rot = flip ? " rotate(180)" : "";
    return `<g transform="translate(${x} ${y}) scale(${size})${rot}" fill="${s.color}">${s.svg}</g>`;
  }

  function esc(t) {
    return String(t).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
  }

  function frame(inner, title, bg) {
    return `<svg class="card" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg" role="img" ` +
      `aria-label="${esc(title)}" data-card="${esc(title)}"><title>${esc(title)}</title>` +
      `<rect x="1.5" y="1.5" width="97" height="137" rx="8" fill="${bg || "#fffdf7"}" stroke="#333" stroke-width="2"/>` +
      inner + "</svg>";
  }

  function back() {
    const lines = [];
    for (let i = -140; i < 140; i += 10) {
      lines.push(`<line x1="${i}" y1="0" x2="${i + 140}" y2="140"/>`, `<line x1="${i + 140}" y1="0" x2="${i}" y2="140"/>`);
    }
    return `<svg class="card back" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg" role="img" ` +
      `aria-label="face down" data-card="face-down"><title>face down</title>` +
      `<defs><clipPath id="cb"><rect x="8" y="8" width="84" height="124" rx="4"/></clipPath></defs>` +
      `<rect x="1.5" y="1.5" width="97" height="137" rx="8" fill="#fff" stroke="#333" stroke-width="2"/>` +
      `<rect x="8" y="8" width="84" height="124" rx="4" fill="#1f4e8c"/>` +
      `<g clip-path="url(#cb)" stroke="#7fa7e0" stroke-width="1.5">${lines.join("")}</g></svg>`;
  }

  function corner(label, suit, color) {
    const fs = String(label).length > 1 ? 13 : 17;     // "10" must not touch the pips
    const one = `<text x="0" y="0" font-size="${fs}" font-weight="700" text-anchor="middle" fill="${color}" ` +
      `font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif">${esc(label)}</text>` + pip(suit, 0, 12, 11);
    return `<g transform="translate(11 19)">${one}</g><g transform="translate(89 121) rotate(180)">${one}</g>`;
  }

  function trump(n) {
    const numeral = ROMAN[n] || String(n);
    const size = numeral.length > 4 ? 26 : 32;
    return frame(
      `<rect x="9" y="9" width="82" height="122" rx="5" fill="none" stroke="#8a6d0b" stroke-width="2"/>` +
      `<path d="M50 24L55 36L68 36L58 44L62 57L50 49L38 57L42 44L32 36L45 36Z" fill="#c9971a"/>` +
      `<text x="50" y="92" font-size="${size}" font-weight="700" text-anchor="middle" fill="#4a2f8a" ` +
      `font-family="DejaVu Serif, Liberation Serif, serif">${numeral}</text>` +
      `<text x="50" y="118" font-size="11" text-anchor="middle" fill="#555" ` +
      `font-family="DejaVu Sans, sans-serif">TRUMP ${n}</text>`, "trump/" + n, "#f7f0dc");
  }

  function fool() {
    return frame(
      `<rect x="9" y="9" width="82" height="122" rx="5" fill="none" stroke="#8a6d0b" stroke-width="2"/>` +
      `<path d="M22 74Q30 40 50 62Q70 40 78 74Z" fill="#c62828"/><path d="M50 62Q48 34 50 30Q52 34 50 62" fill="#1f4e8c"/>` +
      `<path d="M22 74Q18 48 30 44Q36 56 50 62Z" fill="#1f4e8c"/><path d="M78 74Q82 48 70 44Q64 56 50 62Z" fill="#e6b422"/>` +
      `<circle cx="30" cy="42" r="4" fill="#e6b422"/><circle cx="70" cy="42" r="4" fill="#c62828"/><circle cx="50" cy="28" r="4" fill="#e6b422"/>` +
      `<rect x="20" y="73" width="60" height="7" rx="3" fill="#6d4c26"/>` +
      `<text x="50" y="110" font-size="18" font-weight="700" text-anchor="middle" fill="#4a2f8a" ` +
      `font-family="DejaVu Serif, serif">FOOL</text>`, "fool", "#f7f0dc");
  }

  function suited(suit, rank, deckId) {
    const shape = SHAPES[suit];
    const color = shape.color;
    const labels = LABELS[deckId] || {};
    const n = /^\d+$/.test(rank) ? parseInt(rank, 10) : (rank === "ace" ? 1 : 0);
    const short = labels[rank] ? labels[rank][0] : (FRENCH[rank] || (rank === "knight" ? "C" : rank.toUpperCase()));
    let body = corner(short, suit, color);
    if (n === 1) {
      body += pip(suit, 50, 70, 46);
    } else if (n > 1) {
      const size = n >= 7 ? 19 : 23;
      const italian = ["coins", "cups", "swords", "batons"].includes(suit);   // drawn upright
      body += PIPS[n].map(([x, y]) => pip(suit, x, y, size, !italian && y > 70)).join("");
    } else {
      // A court card: a framed panel with the figure's letter and its suit.
      const name = labels[rank] ? labels[rank][1] : rank;
      body += `<rect x="22" y="22" width="56" height="96" rx="4" fill="#f3ead2" stroke="${color}" stroke-width="2"/>` +
        pip(suit, 50, 44, 26) +
        `<text x="50" y="94" font-size="34" font-weight="700" text-anchor="middle" fill="${color}" ` +
        `font-family="DejaVu Serif, Liberation Serif, serif">${esc(short)}</text>` +
        `<text x="50" y="112" font-size="9" text-anchor="middle" fill="#444" ` +
        `font-family="DejaVu Sans, sans-serif">${esc(name)}</text>`;
    }
    return frame(body, suit + "/" + rank);
  }

  CT.cardSVG = function (id, deckId) {
    if (id === null || id === undefined || id === "") return back();
    if (id === "fool") return fool();
    const [suit, rank] = String(id).split("/");
    if (suit === "trump") return trump(parseInt(rank, 10));
    if (SHAPES[suit] && rank) return suited(suit, rank, deckId);
    // Unknown id (never guessed into something else): a plain card with the text.
    return frame(`<text x="50" y="75" font-size="12" text-anchor="middle">${esc(id)}</text>`, String(id));
  };
  CT.deckOfGame = (game) => DECK_OF_GAME[game] || null;
  CT.roman = (n) => ROMAN[n] || String(n);
  CT.esc = esc;
})(typeof window !== "undefined" ? window : globalThis);
