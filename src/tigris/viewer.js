/* tigris view: draws a game from the page's embedded data (inlined into every page).
 *
 * The data (element #game-data) holds the setup, the board layout, the moves and, after
 * every move, the position (tigris-position/1 without its constant fields; the squares
 * as the change from the step before), the player to decide and each player's final
 * score so far, and, if the game was analysed, one row per analysed move.
 * Every text taken from the data is set with textContent, never as HTML.
 *
 * A page's other scripts redraw it from new data without loading it again:
 * window.tigrisViewer.redraw(data, move) draws everything (board, players, supply, moves,
 * status, graph) anew from `data` (as the element holds it) at `move` (default: the last);
 * the listeners stay the ones set up once. */
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const DATA = document.getElementById("game-data");
  const RULES = JSON.parse(document.getElementById("rules-data").textContent);  // tigris.constants
  const COLOURS = RULES.colours;
  const LEADERS = RULES.leaders;                                 // leader i has COLOURS[i]
  const LETTER = Object.fromEntries(LEADERS.map(l => [l, l[0].toUpperCase()]));
  const TILE_NAME = Object.fromEntries(COLOURS.map((c, i) => [c, RULES.tiles[i]]));
  const FILL = { red: "#d63a2b", blue: "#2c67d8", green: "#2b9a47", black: "#2a2a2a" };  // as in viewer.css
  const PLAYER = ["#7b3fc4", "#ea7a0c", "#d1368a", "#a0612d"];       // set as --pc on a card
  const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  const MARK_FILL = { inaccuracy: "#e0b000", mistake: "#e07b00", blunder: "#c0001a" };
  const COLS = RULES.cols, ROWS = RULES.rows, S = 40, M = 22;  // squares, square size, margin
  let D = null;                                                // the data drawn
  let N = 0;                                                   // the last step: after N moves

  // ---------------------------------------------------------------- the positions

  const NAMES = [];                                            // square names by index
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLS; c++) NAMES.push(String.fromCharCode(65 + c) + (r + 1));
  }
  let squaresAt = [];                    // every step's squares, rebuilt from the changes

  function rebuildSquares() {
    squaresAt = [];
    let sq = {};
    for (const step of D.steps) {
      sq = Object.assign({}, sq);
      for (const [k, v] of Object.entries(step.sq)) {
        if (v === null) delete sq[k]; else sq[k] = v;
      }
      squaresAt.push(sq);
    }
  }

  /** The tigris-position/1 object after n moves (keys in the order Python writes them). */
  function position(n) {
    const squares = {};
    for (const name of NAMES) if (name in squaresAt[n]) squares[name] = squaresAt[n][name];
    return Object.assign({ format: D.format, board: D.board, variants: D.variants, squares: squares },
                         D.steps[n].pos);
  }

  /** A square token ("red+treasure", "blue:down", "king:0", "catastrophe") as parts. */
  function parseToken(token) {
    if (token === "catastrophe") return { kind: "catastrophe" };
    const parts = token.split("+");
    const marks = parts.slice(1);
    const [base, suffix] = parts[0].split(":");
    if (suffix !== undefined && suffix !== "down") {
      return { kind: "leader", leader: base, player: parseInt(suffix, 10) };
    }
    return { kind: "tile", colour: base, down: suffix === "down",
             treasure: marks.includes("treasure"), building: marks.includes("building") };
  }

  function describe(name, t) {
    if (t.kind === "catastrophe") return name + ": catastrophe";
    if (t.kind === "leader") return name + ": " + t.leader + " of player " + t.player + playerBot(t.player);
    let text = name + ": " + t.colour + " tile (" + TILE_NAME[t.colour] + ")";
    if (t.down) text += ", face down under a monument";
    if (t.treasure) text += ", with a treasure";
    if (t.building) text += ", with the " + t.colour + " building";
    return text;
  }

  function playerBot(p) {
    return D.bots[p] ? " (" + D.bots[p] + ")" : "";
  }

  // ---------------------------------------------------------------- DOM helpers

  function svg(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }

  function svgText(parent, x, y, text, attrs) {
    const e = svg("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
    e.textContent = text;
    return e;
  }

  /** An HTML element; children are elements or strings (set as text, never as HTML). */
  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return e;
  }

  function xy(name) {
    const c = name.charCodeAt(0) - 65, r = parseInt(name.slice(1), 10) - 1;
    return [M + c * S, M + r * S];
  }

  // ---------------------------------------------------------------- pieces

  function drawTile(g, x, y, colour, down) {
    svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 4, fill: FILL[colour],
                  stroke: "rgba(0,0,0,.35)" }, g);
    if (down) {
      // face down: the colour shows faintly through stripes, as the tile's back would
      svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 4, fill: "url(#face-down)" }, g);
      svg("rect", { x: x + 5, y: y + 5, width: S - 10, height: S - 10, rx: 2, fill: "none",
                    stroke: "#fff", "stroke-width": 1.5, "stroke-dasharray": "3 2" }, g);
    }
  }

  function drawTreasure(g, x, y) {
    const cx = x + S / 2, cy = y + S / 2, r = 9;
    svg("polygon", { points: [cx, cy - r, cx + r, cy, cx, cy + r, cx - r, cy].join(" "),
                     fill: "#ffd23f", stroke: "#6b4e00", "stroke-width": 1.5 }, g);
  }

  function drawBuilding(g, x, y) {
    const l = x + S - 17, t = y + 4;            // a small house in the top right corner
    svg("polygon", { points: [l, t + 6, l + 6.5, t, l + 13, t + 6, l + 13, t + 13, l, t + 13].join(" "),
                     fill: "#fff", stroke: "#222", "stroke-width": 1.5 }, g);
  }

  function drawCatastrophe(g, x, y) {
    svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 4, fill: "#5a5a5a",
                  stroke: "#222" }, g);
    svg("path", { d: `M${x + 10} ${y + 10}L${x + S - 10} ${y + S - 10}M${x + S - 10} ${y + 10}L${x + 10} ${y + S - 10}`,
                  stroke: "#ffb300", "stroke-width": 5, "stroke-linecap": "round" }, g);
  }

  function drawLeader(g, x, y, leader, player) {
    const cx = x + S / 2, cy = y + S / 2;
    svg("circle", { cx: cx, cy: cy, r: 15, fill: FILL[COLOURS[LEADERS.indexOf(leader)]],
                    stroke: PLAYER[player], "stroke-width": 4 }, g);
    svgText(g, cx - 2, cy + 5.5, LETTER[leader], { "text-anchor": "middle", "font-size": 15,
            "font-weight": 700, fill: "#fff", "font-family": "system-ui, sans-serif" });
    // the owner: a badge with the player's number in the player's colour
    svg("circle", { cx: cx + 11, cy: cy + 11, r: 7.5, fill: PLAYER[player], stroke: "#fff",
                    "stroke-width": 1.5 }, g);
    svgText(g, cx + 11, cy + 14.5, String(player), { "text-anchor": "middle", "font-size": 10.5,
            "font-weight": 700, fill: "#fff", "font-family": "system-ui, sans-serif" });
  }

  function drawMonument(g, x, y, colours) {
    const [a, b] = colours.split("-");
    const cx = x + S, cy = y + S, r = 14;       // the middle of its 2 x 2 squares
    svg("rect", { x: x + 1, y: y + 1, width: 2 * S - 2, height: 2 * S - 2, rx: 6, fill: "none",
                  stroke: "#3b2f14", "stroke-width": 2 }, g);
    svg("polygon", { points: [cx - r, cy, cx, cy - r, cx + r, cy].join(" "), fill: FILL[a] }, g);
    svg("polygon", { points: [cx - r, cy, cx, cy + r, cx + r, cy].join(" "), fill: FILL[b] }, g);
    svg("polygon", { points: [cx - r, cy, cx, cy - r, cx + r, cy, cx, cy + r].join(" "), fill: "none",
                     stroke: "#fff", "stroke-width": 2.5 }, g);
    svg("polygon", { points: [cx - r - 2, cy, cx, cy - r - 2, cx + r + 2, cy, cx, cy + r + 2].join(" "),
                     fill: "none", stroke: "#3b2f14", "stroke-width": 1 }, g);
  }

  function drawPiece(g, x, y, t) {
    if (t.kind === "catastrophe") return drawCatastrophe(g, x, y);
    if (t.kind === "leader") return drawLeader(g, x, y, t.leader, t.player);
    drawTile(g, x, y, t.colour, t.down);
    if (t.treasure) drawTreasure(g, x, y);
    if (t.building) drawBuilding(g, x, y);
  }

  function drawUnification(g, x, y) {
    svg("rect", { x: x + 1.5, y: y + 1.5, width: S - 3, height: S - 3, rx: 5, fill: "none",
                  stroke: "#fff", "stroke-width": 3, "stroke-dasharray": "5 3" }, g);
    svg("circle", { cx: x + 9, cy: y + 9, r: 7.5, fill: "#ffc400", stroke: "#222" }, g);
    svgText(g, x + 9, y + 13.5, "!", { "text-anchor": "middle", "font-size": 12, "font-weight": 800,
            fill: "#222", "font-family": "system-ui, sans-serif" });
  }

  // ---------------------------------------------------------------- the board

  const board = document.getElementById("board");
  const W = 2 * M + COLS * S, H = 2 * M + ROWS * S;
  board.setAttribute("viewBox", `0 0 ${W} ${H}`);
  board.setAttribute("xmlns", SVG);
  {
    const defs = svg("defs", {}, board);
    const pattern = svg("pattern", { id: "face-down", width: 6, height: 6,
                                     patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    svg("rect", { width: 6, height: 6, fill: "rgba(255,255,255,.45)" }, pattern);
    svg("rect", { width: 3, height: 6, fill: "rgba(0,0,0,.25)" }, pattern);
    svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#f7f1e1" }, board);
  }
  const ground = svg("g", { class: "ground" }, board);
  let groundDrawn = null;                      // the rivers the ground shows

  /** The squares, the rivers blue (drawn again only for another board). */
  function drawGround() {
    const key = JSON.stringify(D.rivers);
    if (key === groundDrawn) return;
    groundDrawn = key;
    const rivers = new Set(D.rivers);
    ground.replaceChildren();
    for (const name of NAMES) {
      const [x, y] = xy(name);
      svg("rect", { x: x, y: y, width: S, height: S, "data-cell": name,
                    fill: rivers.has(name) ? "#9ccfee" : "#eadfbf", stroke: "#cbbd95", "stroke-width": 0.8 }, ground);
    }
  }
  {
    const labels = svg("g", { "font-size": 12, fill: "#7a6a48", "text-anchor": "middle",
                              "font-family": "system-ui, sans-serif" }, board);
    for (let c = 0; c < COLS; c++) {
      const letter = String.fromCharCode(65 + c), x = M + c * S + S / 2;
      svgText(labels, x, M - 7, letter);
      svgText(labels, x, H - M + 15, letter);
    }
    for (let r = 0; r < ROWS; r++) {
      const y = M + r * S + S / 2 + 4;
      svgText(labels, M / 2, y, String(r + 1));
      svgText(labels, W - M / 2, y, String(r + 1));
    }
  }
  const layer = svg("g", { id: "pieces" }, board);
  // Squares a panel points at (a hint's plans), outlined above the pieces until the board
  // shows another position.
  const marks = svg("g", { id: "marks" }, board);

  window.tigrisBoard = {
    /** Outline each [square name, label] (a label of one or two characters). */
    mark(squares) {
      marks.replaceChildren();
      for (const [name, label] of squares) {
        if (!NAMES.includes(name)) continue;
        const [x, y] = xy(name), g = svg("g", { class: "hint-mark", "data-square": name }, marks);
        svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 6, fill: "none",
                      stroke: "#1a5fb4", "stroke-width": 3, "stroke-dasharray": "6 3" }, g);
        svg("circle", { cx: x + S - 8, cy: y + 8, r: 8, fill: "#1a5fb4" }, g);
        const t = svg("text", { x: x + S - 8, y: y + 12, "text-anchor": "middle", "font-size": 11,
                                fill: "#fff", "font-family": "system-ui, sans-serif" }, g);
        t.textContent = label;
      }
    },
  };

  function drawBoard(n) {
    layer.replaceChildren();
    marks.replaceChildren();
    const step = D.steps[n], squares = squaresAt[n], pending = step.pos.pending || {};
    // what the turn of the last move changed so far (both actions, their follow-ups),
    // outlined under the pieces
    for (const name of turnSquares(n)) {
      const [x, y] = xy(name);
      svg("rect", { class: "changed", "data-square": name, x: x + 0.5, y: y + 0.5, width: S - 1,
                    height: S - 1, rx: 5, fill: "#ffe680", stroke: "#f0a800", "stroke-width": 3 }, layer);
    }
    for (const name of NAMES) {
      const token = squares[name];
      if (token === undefined) continue;
      const t = parseToken(token), [x, y] = xy(name);
      const g = svg("g", { class: "piece", "data-square": name, "data-token": token }, layer);
      svg("title", {}, g).textContent = describe(name, t);
      drawPiece(g, x, y, t);
    }
    for (const m of step.pos.monuments) {
      const [x, y] = xy(m.at);
      const g = svg("g", { class: "monument", "data-monument": m.colours, "data-at": m.at }, layer);
      svg("title", {}, g).textContent = "monument " + m.colours + " on " + m.at;
      drawMonument(g, x, y, m.colours);
    }
    if (pending.unification) {
      const [x, y] = xy(pending.unification);
      const g = svg("g", { class: "unification", "data-square": pending.unification }, layer);
      svg("title", {}, g).textContent = pending.unification + ": the unification tile";
      drawUnification(g, x, y);
    }
    if (pending.conflict) {
      for (const side of ["attacker", "defender"]) {
        const [x, y] = xy(pending.conflict[side].leader);
        drawConflictRing(layer, x, y, side);
      }
    }
  }

  /** The squares changed by the moves of the turn that move n was made in, up to move n
   * (a move's turn: the turn of the position before it). */
  function turnSquares(n) {
    const touched = new Set();
    if (n === 0) return touched;
    const turn = D.steps[n - 1].pos.turn;
    for (let k = n; k > 0; k--) {
      if (k < n && (turn === undefined || D.steps[k - 1].pos.turn !== turn)) break;
      for (const name of Object.keys(D.steps[k].sq)) touched.add(name);
    }
    return touched;
  }

  function drawConflictRing(g, x, y, side) {
    svg("circle", { class: "conflict", cx: x + S / 2, cy: y + S / 2, r: 19, fill: "none",
                    stroke: side === "attacker" ? "#c0001a" : "#111", "stroke-width": 2.5,
                    "stroke-dasharray": "4 2" }, g);
  }

  // ---------------------------------------------------------------- the legend

  function legendItem(draw, text, wide) {
    const icon = svg("svg", wide ? { viewBox: `${S / 2} ${S / 2} ${S} ${S}` } : { viewBox: `0 0 ${S} ${S}` });
    draw(icon);
    return h("span", { class: "item" }, icon, text);
  }

  function drawLegend() {
    const legend = document.getElementById("legend");
    const items = COLOURS.map(c => legendItem(g => drawTile(g, 0, 0, c, false), c + " " + TILE_NAME[c]));
    items.push(legendItem(g => drawTile(g, 0, 0, "blue", true), "face-down tile"));
    items.push(legendItem(g => { drawTile(g, 0, 0, "red", false); drawTreasure(g, 0, 0); }, "treasure"));
    items.push(legendItem(g => drawCatastrophe(g, 0, 0), "catastrophe"));
    items.push(legendItem(g => drawLeader(g, 0, 0, "king", 0),
                          "king of player 0 (leaders: P priest, F farmer, T trader, K king)"));
    items.push(legendItem(g => drawMonument(g, 0, 0, "red-blue"), "monument", true));
    if (D.variants.includes("buildings")) {
      items.push(legendItem(g => { drawTile(g, 0, 0, "green", false); drawBuilding(g, 0, 0); },
                            "civilization building"));
    }
    items.push(legendItem(g => { drawLeader(g, 0, 0, "trader", 1); drawConflictRing(g, 0, 0, "attacker"); },
                          "conflict: attacker red ring, defender black"));
    items.push(legendItem(g => { drawTile(g, 0, 0, "red", false); drawUnification(g, 0, 0); },
                          "unification tile"));
    items.push(legendItem(g => svg("rect", { x: 1.5, y: 1.5, width: S - 3, height: S - 3, rx: 5,
                                             fill: "#ffe680", stroke: "#f0a800", "stroke-width": 3 }, g),
                          "the turn of the move shown, so far"));
    items.push(legendItem(g => svg("rect", { width: S, height: S, fill: "#9ccfee" }, g), "river"));
    legend.replaceChildren(...items);
  }

  // ---------------------------------------------------------------- the analysis

  let analysed = {};                             // move number -> analysis row

  function pct(x) {
    return typeof x === "number" ? Math.round(100 * x) + "%" : "?";
  }

  function points(x) {                          // a score margin: "+2.5", "-10.0"
    return typeof x === "number" ? (x >= 0 ? "+" : "") + x.toFixed(1) : "?";
  }

  function markTitle(row) {
    let text = (row.mark || "move") + ": " + row.played + "; best " + row.best;
    if (typeof row.margin_before === "number") {
      text += "; score margin " + points(row.margin_before) + " before";
      if (typeof row.margin_after === "number") text += ", " + points(row.margin_after) + " after";
    }
    if (typeof row.win_before === "number") {
      text += "; win chance " + pct(row.win_before) + " before";
      if (typeof row.win_after === "number") text += ", " + pct(row.win_after) + " after";
    }
    return text;
  }

  const graph = document.getElementById("graph");
  const GW = 640, GH = 140, GL = 36, GR = 10, GT = 20, GB = 20;
  const gx = n => GL + (N ? n / N : 0) * (GW - GL - GR);
  const gy = v => GT + (1 - v) * (GH - GT - GB);
  let cursor = null;

  /** Each player's win chance over the game, when it was analysed. */
  function drawGraph() {
    graph.replaceChildren();
    cursor = null;
    document.getElementById("graph-wrap").hidden = !(D.analysis && D.analysis.length);
    document.getElementById("luck").hidden = true;
    if (D.analysis && D.analysis.length) drawAnalysis();
  }

  function drawAnalysis() {
    graph.setAttribute("viewBox", `0 0 ${GW} ${GH}`);
    svg("rect", { x: GL, y: GT, width: GW - GL - GR, height: GH - GT - GB, fill: "#fff", stroke: "#ccc" }, graph);
    for (const v of [0, 0.25, 0.5, 0.75, 1]) {
      svg("line", { x1: GL, x2: GW - GR, y1: gy(v), y2: gy(v), stroke: v === 0.5 ? "#aaa" : "#eee" }, graph);
      svgText(graph, GL - 4, gy(v) + 4, Math.round(v * 100) + "%", { "text-anchor": "end", "font-size": 10, fill: "#666" });
    }
    const tick = N > 200 ? 50 : N > 80 ? 20 : 10;
    for (let n = 0; n <= N; n += tick) {
      svgText(graph, gx(n), GH - 7, String(n), { "text-anchor": "middle", "font-size": 10, fill: "#666" });
    }
    // Every player's chance at every analysed decision, whoever decides: they add up to
    // 100% at each move.
    const rows = D.analysis.filter(r => Array.isArray(r.chances)).sort((a, b) => a.move - b.move);
    const players = rows.length ? rows[0].chances.length : 0;
    let lx = GL;                                 // the key, above the plot
    for (let p = 0; p < players; p++) {
      svg("polyline", { class: "win-line", "data-player": p, fill: "none", stroke: PLAYER[p] || "#333",
                        "stroke-width": 2, "stroke-linejoin": "round",
                        points: rows.map(r => gx(r.move - 1) + "," + gy(r.chances[p])).join(" ") }, graph);
      svg("line", { x1: lx, x2: lx + 16, y1: GT - 9, y2: GT - 9, stroke: PLAYER[p] || "#333", "stroke-width": 3 }, graph);
      svgText(graph, lx + 20, GT - 5, "player " + p + playerBot(p), { "font-size": 11, fill: "#333" });
      lx += 180;
    }
    for (const row of D.analysis) {
      if (!row.mark || typeof row.win_before !== "number") continue;
      const dot = svg("circle", { class: "mark-dot", cx: gx(row.move - 1), cy: gy(row.win_before), r: 4.5,
                                  fill: MARK_FILL[row.mark], stroke: "#fff", "stroke-width": 1.2 }, graph);
      svg("title", {}, dot).textContent = row.move + ". " + MARK[row.mark] + " " + markTitle(row);
    }
    if (D.luck) showLuck();
    cursor = svg("line", { y1: GT, y2: GH - GB, stroke: "#222", "stroke-width": 1.2, "stroke-dasharray": "3 2" }, graph);
  }
  graph.addEventListener("click", ev => {
    if (!cursor) return;
    const pt = graph.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(graph.getScreenCTM().inverse());
    show(Math.round((p.x - GL) / (GW - GL - GR) * N));
  });

  // ---------------------------------------------------------------- the move list

  const list = document.getElementById("moves");
  function fillList() {
    const items = [h("li", { "data-step": 0 }, h("span", { class: "n" }, "0."), "start of the game")];
    D.moves.forEach((m, i) => {
      const n = i + 1, row = analysed[n];
      const li = h("li", { "data-step": n },
                   h("span", { class: "n" }, n + "."),
                   h("span", { class: "dot", style: "background:" + PLAYER[m.player], title: "player " + m.player }),
                   h("span", { class: "text" }, m.text));
      if (m.forced.length) li.appendChild(h("span", { class: "forced" }, " then " + m.forced.join(", ")));
      if (row && row.mark) {
        li.appendChild(h("span", { class: "mark " + row.mark, title: markTitle(row) }, MARK[row.mark]));
        li.appendChild(h("span", { class: "best" }, "best: " + row.best));
        li.title = markTitle(row);
      }
      items.push(li);
    });
    list.replaceChildren(...items);
  }
  list.addEventListener("click", ev => {
    const li = ev.target.closest("li");
    if (li) show(parseInt(li.dataset.step, 10));
  });

  // ---------------------------------------------------------------- the panel

  function counts(obj) {
    return COLOURS.map(c => c + " " + obj[c]).join(", ");
  }

  function leaderIcon(leader, player, away) {
    const icon = svg("svg", { viewBox: `0 0 ${S} ${S}`, class: away ? "away" : "" });
    drawLeader(icon, 0, 0, leader, player);
    return icon;
  }

  /** Whether the game is over at move n: ended by its rules, or at its last move by a
   * resignation or a turn limit (the result's "adjudicated" says which). */
  function overAt(n) {
    return D.steps[n].decision === "over" || (n === N && !!D.result && !!D.result.adjudicated);
  }

  function playerCard(n, p) {
    const step = D.steps[n], pos = step.pos, me = pos.players[p];
    const over = overAt(n);
    const toMove = !over && pos.to_move === p;
    const card = h("div", { class: "player" + (toMove ? " to-move" : ""), "data-player": p,
                            style: "--pc:" + PLAYER[p] });
    const head = h("div", {}, h("span", { class: "name" }, "Player " + p + (D.bots[p] ? " \u00b7 " + D.bots[p] : "")));
    if (toMove) head.appendChild(h("span", { class: "badge to-move-badge" }, "to move"));
    if (!over && step.who === p && step.decision !== "action") {
      head.appendChild(h("span", { class: "badge deciding" }, "decides: " + step.decision.replace("_", " ")));
    }
    card.appendChild(head);
    const score = h("div", { class: "row" }, h("span", { class: "label" }, "score"));
    for (const c of COLOURS) {
      score.appendChild(h("span", { class: "chip score " + c, "data-colour": c, title: c + " points" }, String(me.score[c])));
    }
    score.appendChild(h("span", { class: "count" }, "treasures ",
                        h("b", { class: "treasures" }, String(me.treasures))));
    score.appendChild(h("span", { class: "count", title: "the weakest colour after the treasures: the score if the game ended now" },
                        "final ", h("b", { class: "final" }, String(step.final[p]))));
    card.appendChild(score);
    const size = me.hand ? COLOURS.reduce((s, c) => s + me.hand[c], 0) : me.hand_size;
    const hand = h("div", { class: "row" }, h("span", { class: "label" }, "hand ",
                   h("b", { class: "hand-size" }, String(size))));
    if (me.hand) {
      const tiles = h("span", { class: "tiles hand" });
      for (const c of COLOURS) {
        for (let k = 0; k < me.hand[c]; k++) tiles.appendChild(h("span", { class: "tile " + c, "data-colour": c, title: c }));
      }
      hand.appendChild(tiles);
      hand.appendChild(h("span", { class: "count" },
                         COLOURS.filter(c => me.hand[c]).map(c => me.hand[c] + " " + c).join(", ") || "empty"));
    } else {
      hand.appendChild(h("span", { class: "count" }, "colours unknown"));
    }
    card.appendChild(hand);
    const where = {};
    for (const [name, token] of Object.entries(squaresAt[n])) {
      const t = parseToken(token);
      if (t.kind === "leader" && t.player === p) where[t.leader] = name;
    }
    const leaders = h("div", { class: "row leader-icons" }, h("span", { class: "label" }, "leaders"));
    for (const l of LEADERS) {
      const span = h("span", { title: l + (where[l] ? " on " + where[l] : " in the supply") },
                     leaderIcon(l, p, !where[l]), " " + (where[l] || "\u2013"));
      leaders.appendChild(span);
    }
    card.appendChild(leaders);
    card.appendChild(h("div", { class: "row" }, h("span", { class: "label" }, "other"),
                       h("span", { class: "count" }, "catastrophes left " + me.catastrophes +
                         " \u00b7 face-down discards " + me.swapped_face_down)));
    return card;
  }

  function decisionText(n) {
    const step = D.steps[n], pos = step.pos, pending = pos.pending || {};
    if (overAt(n)) {
      if (!D.result) return h("div", { class: "over" }, "Game over.");
      const places = D.result.ranking.map((seats, k) => (k + 1) + ". " + seats.map(
        s => "player " + s + playerBot(s) + " " + D.result.final[s]).join(", "));
      const why = D.result.adjudicated ? " (" + D.result.adjudicated + ")" : "";
      return h("div", { class: "over" }, "Game over" + why + ": " + places.join(" \u00b7 "));
    }
    const lines = [h("div", {}, "Turn " + pos.turn + ": player " + pos.to_move + playerBot(pos.to_move) +
                     " to move, " + pos.actions_left + " action" + (pos.actions_left === 1 ? "" : "s") + " left.")];
    if (step.decision !== "action") {
      lines.push(h("div", { class: "decision" }, "Decision: " + step.decision.replace("_", " ") + " by player " + step.who + "."));
    }
    const c = pending.conflict;
    if (c) {
      const leader = LEADERS[COLOURS.indexOf(c.colour)];
      const side = (who, s) => who + " player " + s.player + " (" + leader + " on " + s.leader + ", strength " + s.strength +
        (s.committed === undefined ? "" : ", committed " + (s.committed === null ? "not yet" : s.committed)) + ")";
      // a war is supported by its own colour, a revolt always by temples (red; RULES.md A-7)
      const support = c.kind === "war" ? c.colour : "red";
      lines.push(h("div", {}, (c.kind === "war" ? "War" : "Revolt") + " of the " + leader + "s (" + support + " support): " +
                   side("attacker", c.attacker) + " against " + side("defender", c.defender) + "."));
    }
    const extra = [];
    if (pending.unification) extra.push("unification tile " + pending.unification);
    if (pending.wars_left && pending.wars_left.length) extra.push("wars left: " + pending.wars_left.join(", "));
    if (pending.placed) extra.push("tile placed on " + pending.placed);
    if (pending.trader) extra.push("the trader on " + pending.trader + " takes a treasure");
    if (extra.length) lines.push(h("div", {}, extra.join("; ") + "."));
    return h("div", {}, ...lines);
  }

  // The luck of the tiles drawn (tigris.play.luck): per player, summed over the game.
  let luckAt = {};                               // move number -> [[player, luck], ...]
  function signedPct(v) { return (v >= 0 ? "+" : "") + (100 * v).toFixed(1) + "%"; }
  function showLuck() {
    const sums = new Array(D.players).fill(0);
    for (const [, p, v] of D.luck) sums[p] += v;
    const el = document.getElementById("luck");
    el.hidden = false;
    el.textContent = "Luck of the tiles drawn (the drawer's chance after its draws, against " +
      "its mean over what the bag could have given; summed over the game): " +
      sums.map((v, p) => "player " + p + " " + signedPct(v)).join(", ") + ".";
  }

  function lastMove(n) {
    if (n === 0) return h("div", { class: "last" }, "Start of the game.");
    const m = D.moves[n - 1], row = analysed[n];
    const div = h("div", { class: "last" }, "Move " + n + ": player " + m.player + playerBot(m.player) + ": ",
                  h("span", { class: "last-text" }, m.text));
    if (m.forced.length) div.appendChild(h("span", { class: "forced" }, " (then " + m.forced.join(", ") + ")"));
    if (row && row.forced) {
      div.appendChild(h("div", { class: "hint analysis-line" }, "Analysis: the only legal move."));
    } else if (row) {
      if (row.mark) div.appendChild(h("span", { class: "mark " + row.mark }, " " + MARK[row.mark] + " " + row.mark));
      let line = "Analysis: " + (row.verdict ? row.verdict + "; " : "");
      if (typeof row.margin_before === "number") {
        line += "score margin " + points(row.margin_before) + " with the best move, " + points(row.margin_after) + " after this one; ";
      }
      line += "win chance " + pct(row.win_before) + " with the best move, " + pct(row.win_after) + " after this one.";
      if (row.continuation && row.continuation.length) line += " Expected after the best: " + row.continuation.join(", ") + ", ...";
      div.appendChild(h("div", { class: "hint analysis-line" }, line));
    }
    if (luckAt[n]) {
      div.appendChild(h("div", { class: "hint luck-line" }, "Luck of the draws: " +
        luckAt[n].map(([p, v]) => "player " + p + " " + signedPct(v)).join(", ") + "."));
    }
    return div;
  }

  function supply(n) {
    const pos = D.steps[n].pos, rows = [];
    const bagSize = pos.bag ? COLOURS.reduce((s, c) => s + pos.bag[c], 0) : null;
    rows.push(h("div", { class: "row" }, h("b", {}, "Bag: "),
                pos.bag ? bagSize + " tiles (" + counts(pos.bag) + ")" : "unknown"));
    rows.push(h("div", { class: "row" }, h("b", {}, "Out of the game: "), counts(pos.out_of_game)));
    rows.push(h("div", { class: "row" }, h("b", {}, "Monuments: "),
                pos.monuments.map(m => m.colours + " on " + m.at).join(", ") || "none built"));
    if (D.variants.includes("buildings")) {
      const built = Object.entries(squaresAt[n]).filter(([, t]) => t.includes("+building"))
        .map(([name, t]) => t.split(/[+:]/)[0] + " on " + name);
      rows.push(h("div", { class: "row" }, h("b", {}, "Buildings: "), built.join(", ") || "none built"));
    }
    return rows;
  }

  // ---------------------------------------------------------------- stepping

  const slider = document.getElementById("slider");
  const text = document.getElementById("position-text");
  const copyStatus = document.getElementById("copy-status");
  let current = -1;

  /** `data` (as the page's element holds it) read, and what does not change from move to
   * move drawn: the squares, the legend, the graph, the list of moves. */
  function load(data) {
    D = data;
    N = D.steps.length - 1;
    rebuildSquares();
    analysed = {};
    for (const row of D.analysis || []) analysed[row.move] = row;
    luckAt = {};
    for (const [move, p, v] of D.luck || []) (luckAt[move] = luckAt[move] || []).push([p, v]);
    drawGround();
    drawLegend();
    drawGraph();
    fillList();
    slider.max = String(N);
    document.getElementById("move-count").textContent = String(N);
    current = -1;
  }

  function show(n) {
    n = Math.max(0, Math.min(N, Number.isFinite(n) ? n : 0));
    if (n === current) return;
    current = n;
    drawBoard(n);
    document.getElementById("status").replaceChildren(lastMove(n), decisionText(n));
    document.getElementById("players").replaceChildren(
      ...Array.from({ length: D.players }, (_, p) => playerCard(n, p)));
    document.getElementById("supply").replaceChildren(...supply(n));
    slider.value = String(n);
    document.getElementById("move-number").textContent = String(n);
    document.getElementById("first").disabled = document.getElementById("prev").disabled = n === 0;
    document.getElementById("next").disabled = document.getElementById("last").disabled = n === N;
    for (const li of list.querySelectorAll("li.current")) li.classList.remove("current");
    const li = list.children[n];
    li.classList.add("current");
    // scroll the list (not the page) to show the current move in its middle
    list.scrollTop = li.offsetTop - (list.clientHeight - li.offsetHeight) / 2;
    if (cursor) { cursor.setAttribute("x1", gx(n)); cursor.setAttribute("x2", gx(n)); }
    if (!text.hidden) fillPosition();
    // for a page's other scripts (tigris serve's hint panel): the position shown
    window.tigrisShown = { move: n, position: position(n) };
    document.dispatchEvent(new CustomEvent("tigris:shown", { detail: window.tigrisShown }));
    // the address keeps the move, so a reload (or a copied link) comes back to it
    if (n || location.hash) {
      try { history.replaceState(null, "", "#move=" + n); } catch (e) { /* a browser may refuse */ }
    }
  }

  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(current - 1));
  document.getElementById("next").addEventListener("click", () => show(current + 1));
  document.getElementById("last").addEventListener("click", () => show(N));
  slider.addEventListener("input", () => show(parseInt(slider.value, 10)));
  document.addEventListener("keydown", ev => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.target === text) return;
    const to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: N }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();              // also on the slider: one move per key press
    show(to);
  });

  // ---------------------------------------------------------------- copy position

  function fillPosition() {
    text.value = JSON.stringify(position(current), null, 1);
  }

  document.getElementById("copy-position").addEventListener("click", () => {
    text.hidden = false;
    fillPosition();
    text.focus();
    text.select();
    const where = "the position after move " + current + " (tigris-position/1, for tigris hint)";
    const fallback = () => {
      let copied = false;
      try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
      copyStatus.textContent = copied ? "Copied " + where + "." : "Select the text below and copy it: " + where + ".";
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text.value).then(
        () => { copyStatus.textContent = "Copied " + where + "."; }, fallback);
    } else {
      fallback();
    }
  });

  function fromAddress() {
    const m = /^#move=(\d+)$/.exec(location.hash);
    return m ? parseInt(m[1], 10) : 0;
  }
  window.addEventListener("hashchange", () => show(fromAddress()));

  window.tigrisViewer = {
    /** Draw the page anew from `data` (a game page's data, ``tigris.view.game_data``) at
     * step `move` (default: the last), without loading the page again. */
    redraw(data, move) {
      DATA.textContent = JSON.stringify(data);
      load(data);
      show(move === undefined ? N : move);
    },
  };
  load(JSON.parse(DATA.textContent));
  show(fromAddress());
})();
