#!/usr/bin/env node
// An example Solstice bot in JavaScript (Node.js, no packages), speaking the JSON-lines bot
// protocol of protocol.md, "Bot protocol". Copy it and change choose().
//
//   solstice bot-check 'cmd:node bots/examples/example_bot.js'
//   solstice tournament --bots 'random,cmd:node bots/examples/example_bot.js' --games 20
//
// Strategy: draft the own cards worth most (Duchess first) and good events; dispatch scoring
// cards where the faction leads, opponents' cards where we lead by most; in decisions prefer
// the option that kills an opponent's card or scores over doing nothing.
"use strict";

const readline = require("readline");

const OWN_VALUE = { Duchess: 6, Diplomat: 3, Marshal: 3, Legions: 3, Elder: 2, Assassin: 2 };
const GOOD_EVENTS = { "Whispered Secrets": 3, "Medical Team": 2, Messenger: 2, Sentry: 2,
  "Hidden Base": 2, Mercenaries: 2, Imposter: 2, Transport: 1, Famine: 1 };
// The cards' numbers (`solstice rules cards` prints them): type -> [strength, favor, VP]. The
// factions differ: each has one signature card worth 3 VP, and green's Diplomat is also S0 F3
// where the others' are S1 F1.
const NUMBERS = { Legions: [2, 2, 0], Diplomat: [1, 1, 2], Assassin: [1, 0, 2],
  Duchess: [0, 1, 1], Marshal: [1, 0, 2], Elder: [1, 1, 1] };
const SIGNATURE = { black: ["Assassin", [1, 0, 3]], white: ["Duchess", [0, 1, 3]],
  blue: ["Marshal", [1, 0, 3]], green: ["Diplomat", [0, 3, 3]] };
const numbers = (faction, name) =>
  (SIGNATURE[faction][0] === name ? SIGNATURE[faction][1] : NUMBERS[name]);
const NEUTRAL_STRENGTH = { "Atmospheric Storm": 3, Quagmire: 2 }; // strongest must beat these

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// A small seeded generator (mulberry32) for tie-breaks, so games replay exactly.
function makeRandom(seedHex) {
  let a = parseInt((seedHex || "0").slice(0, 8), 16) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Card labels are "<faction>:<Type>" or "event:<Name>"; view.known maps slot -> label.
function split(label) {
  const i = label.indexOf(":");
  return [label.slice(0, i), label.slice(i + 1)];
}

function draftScore(label, faction) {
  if (!label) return 0;
  const [owner, name] = split(label);
  if (owner === "event") return GOOD_EVENTS[name] ?? 0.5;
  if (owner === faction) {
    return (OWN_VALUE[name] ?? 1) + numbers(faction, name)[2] - NUMBERS[name][2];
  }
  return name === "Duchess" ? 2.5 : 0.5; // deny an opponent's Duchess
}

function standing(view, p, seat) {
  const n = view.factions.length;
  const strength = new Array(n).fill(0);
  const favor = new Array(n).fill(0);
  let neutral = 0; // a neutral source counts as another faction's strength
  for (const card of view.planets[p].cards) {
    if (!card.label) continue;
    const [owner, name] = split(card.label);
    if (owner === "event") {
      neutral = Math.max(neutral, NEUTRAL_STRENGTH[name] ?? 0);
      continue;
    }
    const k = view.factions.indexOf(owner);
    const [s, f] = numbers(owner, name);
    strength[k] += s;
    favor[k] += f;
  }
  const others = [...Array(n).keys()].filter((i) => i !== seat);
  const best = (xs) => Math.max(...others.map((i) => xs[i]));
  return [strength[seat] - Math.max(neutral, best(strength)), favor[seat] - best(favor)];
}

function dispatchScore(view, seat, slot, p) {
  const label = view.known[String(slot)];
  if (!label) return 0;
  const [owner, name] = split(label);
  const planet = view.planets[p];
  const [sLead, fLead] = standing(view, p, seat);
  if (owner === "event") return ["Whispered Secrets", "Hidden Base"].includes(name) ? 1 : 0.2;
  if (owner !== view.factions[seat]) return -2 + 0.3 * (sLead + fLead) - 0.1 * planet.cards.length;
  const duchessThere = planet.cards.some((c) => c.dispatcher !== seat &&
    (c.claim === "Duchess" || (c.label || "").endsWith(":Duchess")));
  if (name === "Duchess") return planet.vp + fLead - (duchessThere ? 3 : 0);
  if (name === "Assassin") return duchessThere ? 3 : -1;
  if (name === "Marshal" || name === "Elder") return 1.5 + sLead;
  if (name === "Diplomat") return 1.5 + fLead;
  return 1 + 0.5 * sLead;
}

function score(view, text) {
  const seat = view.seat;
  const faction = view.factions[seat];
  const words = text.split(" ");
  switch (words[1]) {
    case "pick":
      return words.slice(2).reduce((s, x) => s + draftScore(view.known[x], faction), 0);
    case "dispatch":
      return dispatchScore(view, seat, Number(words[2]), Number(words[3]));
    case "capture": {
      const label = view.known[words[2]] || "";
      return label.endsWith(":Duchess") && !label.startsWith(faction) ? 0.5
        : 0.3 * draftScore(label, faction) - 1;
    }
    case "choose": {
      const option = words.slice(2).join(" ");
      if (option === "yes" || option === "reveal") return 1;
      if (option.includes(":")) return option.startsWith(faction + ":") ? -5 : 2;
      return 0;
    }
    default:
      return 0;
  }
}

function choose(view, legal, random) {
  let best = legal[0];
  let bestScore = -Infinity;
  for (const text of legal) {
    const s = score(view, text) + random() * 0.01; // random tie-break
    if (s > bestScore) [best, bestScore] = [text, s];
  }
  return best;
}

let random = makeRandom("0");
const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      random = makeRandom(message.seed);
      send({ type: "ready", name: "example-js", protocol: 1 });
      break;
    case "decide":
      try {
        send({ type: "action", id: message.id, action: choose(message.view, message.legal, random) });
      } catch (err) {
        // Say what went wrong (shown by the client, prefixed with bot and seat), then answer.
        send({ type: "log", message: `choose failed: ${err.message}; playing the first option` });
        send({ type: "action", id: message.id, action: message.legal[0] });
      }
      break;
    case "quit":
      input.close();
      break;
    default: // "end" and unknown message types need no answer
  }
});
input.on("close", () => process.exit(0));
