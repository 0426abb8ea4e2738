(function () {
  "use strict";
  // The live page: polls /api/state once a second while its tab is visible, the games'
  // list when a game was added, and draws what it got. Every text from the server is put
  // in as text, never as HTML: bot names and replies are a student's.
  var POLL_MS = 1000, ENDED_POLL_MS = 5000, LOST_POLL_MS = 2000;
  var $ = function (id) { return document.getElementById(id); };
  var path = location.pathname;
  var team = path.indexOf("/team/") === 0 ? decodeURIComponent(path.slice(6)) : null;
  var state = null, fetchedAt = 0, gamesOf = -1, games = [], timer = null;
  var replay = null, ply = 0;

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function num(x, digits) {
    if (x === null || x === undefined) return "";
    return Number(x).toFixed(digits === undefined ? 0 : digits);
  }
  function signed(x) {
    if (x === null || x === undefined) return "?";
    var r = Math.round(x);
    return (r > 0 ? "+" : "") + r;
  }
  function fillOf(kinds, kind) {
    for (var i = 0; i < kinds.length; i++) if (kinds[i].name === kind) return kinds[i].fill;
    var h = 0;
    for (var j = 0; j < kind.length; j++) h = (h * 31 + kind.charCodeAt(j)) % 360;
    return "hsl(" + h + ",55%,55%)";
  }
  function inkFor(fill) {
    var m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(fill);
    if (!m) return "#000";
    var y = 0.299 * parseInt(m[1], 16) + 0.587 * parseInt(m[2], 16) + 0.114 * parseInt(m[3], 16);
    return y < 128 ? "#fff" : "#000";
  }

  // A board: `cells` as [kind, label] pairs, or as {kind, label} objects.
  function drawBoard(box, view, kinds) {
    box.replaceChildren();
    if (!view) return;
    box.style.gridTemplateColumns = "repeat(" + view.cols + ", auto)";
    view.cells.forEach(function (c) {
      var kind = Array.isArray(c) ? c[0] : c.kind, label = Array.isArray(c) ? c[1] : c.label;
      var div = el("div", label, "arb-cell" + (kind === "off" ? " arb-off" : ""));
      div.dataset.cell = label ? kind + ":" + label : kind;
      if (kind !== "off") {
        var fill = fillOf(kinds, kind);
        div.style.background = fill;
        div.style.color = inkFor(fill);
      }
      box.appendChild(div);
    });
  }

  // A line chart of `points` ([x, y] pairs) with dashed horizontal `bounds`.
  function chart(box, points, bounds, label) {
    var W = 480, H = 180, P = 30;
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    svg.setAttribute("aria-label", label);
    var xs = points.map(function (p) { return p[0]; });
    var ys = points.map(function (p) { return p[1]; }).concat(bounds);
    var x0 = 0, x1 = Math.max.apply(null, xs.concat([1]));
    var y0 = Math.min.apply(null, ys.concat([0])), y1 = Math.max.apply(null, ys.concat([0]));
    if (y1 - y0 < 1e-9) { y0 -= 1; y1 += 1; }
    var X = function (x) { return P + (x - x0) / (x1 - x0) * (W - 2 * P); };
    var Y = function (y) { return H - P - (y - y0) / (y1 - y0) * (H - 2 * P); };
    bounds.forEach(function (b) {
      var line = document.createElementNS(ns, "line");
      line.setAttribute("class", "bound");
      line.setAttribute("x1", P); line.setAttribute("x2", W - P);
      line.setAttribute("y1", Y(b)); line.setAttribute("y2", Y(b));
      svg.appendChild(line);
      var t = document.createElementNS(ns, "text");
      t.setAttribute("x", W - P + 2); t.setAttribute("y", Y(b) + 4);
      t.setAttribute("font-size", "10");
      t.textContent = num(b, 2);
      svg.appendChild(t);
    });
    var line = document.createElementNS(ns, "polyline");
    line.setAttribute("class", "line");
    line.setAttribute("points", points.map(function (p) { return X(p[0]) + "," + Y(p[1]); }).join(" "));
    svg.appendChild(line);
    svg.dataset.points = points.length;
    box.replaceChildren(svg);
  }

  function drawStatus() {
    var s = $("status");
    if (!state) return;
    s.className = "status " + (state.running ? "running" : "ended");
    s.textContent = state.running ? "running" : "ended: final tables";
    $("progress").textContent = state.done + "/" + state.total + " games";
    $("eta").textContent = state.running && state.eta_s !== null ? "ETA " + num(state.eta_s) + " s" : "";
    $("machine").textContent = state.machine || "";
    var what = { round_robin: "League", gauntlet: "Gauntlet", sprt: "SPRT" }[state.kind] || state.kind;
    $("title").textContent = (team ? team + ": " : "") + what + " of " + state.game;
  }

  function drawStandings() {
    var body = $("standings").querySelector("tbody");
    body.replaceChildren();
    state.standings.forEach(function (r) {
      var tr = el("tr");
      if (team && r.bot === team) tr.className = "mine";
      var ci = r.elo_low === null || r.elo_high === null ? "" : "[" + signed(r.elo_low) + ", " + signed(r.elo_high) + "]";
      [r.rank, r.bot, r.games, r.wins, r.losses, r.ties, num(r.points, 1),
        r.mark === null ? "" : num(r.mark, 2), signed(r.elo), ci, r.illegal, r.timeouts, r.errors
      ].forEach(function (v, i) {
        var td = el("td", v, i === 1 ? "bot" : "");
        if (i === 1 && !team) {
          td.replaceChildren();
          var a = el("a", r.bot);
          a.href = "/team/" + encodeURIComponent(r.bot);
          td.appendChild(a);
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }

  function drawInPlay() {
    var box = $("in-play");
    var shown = state.in_play.filter(function (g) { return !team || g.bots.indexOf(team) >= 0; });
    if (shown.length === 0) { box.replaceChildren(el("p", "none", "quiet")); return; }
    box.replaceChildren();
    var since = (Date.now() - fetchedAt) / 1000;
    shown.forEach(function (g) {
      var card = el("div", null, "live-game");
      card.dataset.game = g.id;
      card.appendChild(el("h3", "game " + g.id + ": " + g.bots[0] + " (" + g.roles[0] + ") vs " + g.bots[1] + " (" + g.roles[1] + ")"));
      var board = el("div", null, "arb-board");
      drawBoard(board, g.board, state.kinds);
      card.appendChild(board);
      var mover = g.to_move === null || g.to_move === undefined ? "" : g.bots[g.to_move] + " (" + g.roles[g.to_move] + ") to move";
      card.appendChild(el("p", mover, "to-move"));
      var clock = el("p", "ply " + g.ply + "; this move " + num(g.move_s + since, 1) + " s; game " + num(g.game_s + since) + " s", "clock");
      clock.dataset.move = g.move_s;
      card.appendChild(clock);
      if (g.board && g.board.caption) card.appendChild(el("p", g.board.caption, "quiet"));
      box.appendChild(card);
    });
  }

  function tickClocks() {
    if (!state) return;
    var since = (Date.now() - fetchedAt) / 1000;
    document.querySelectorAll(".live-game").forEach(function (card) {
      var g = state.in_play.filter(function (x) { return String(x.id) === card.dataset.game; })[0];
      if (!g) return;
      card.querySelector(".clock").textContent = "ply " + g.ply + "; this move " + num(g.move_s + since, 1) + " s; game " + num(g.game_s + since) + " s";
    });
  }

  function drawSprt() {
    var s = state.sprt;
    $("sprt-section").hidden = !s;
    if (!s) return;
    var last = s.llr.length ? s.llr[s.llr.length - 1][1] : 0;
    $("sprt-text").textContent = s.candidate + " vs " + s.baseline + ": LLR " + num(last, 2) +
      " after " + s.llr.length + " pairs, bounds [" + num(s.lower, 2) + ", " + num(s.upper, 2) + "]; Elo " +
      signed(s.elo) + " [" + signed(s.elo_low) + ", " + signed(s.elo_high) + "]" +
      (s.verdict ? "; " + (s.verdict === "Inconclusive" ? "no verdict yet" : s.verdict) : "");
    chart($("sprt-chart"), [[0, 0]].concat(s.llr), [s.lower, s.upper].filter(function (b) { return b !== null; }), "LLR against pairs");
  }

  function result(g) {
    if (g.winner === null || g.winner === undefined) return "tie";
    return g.bots[g.winner] + " wins";
  }

  function drawGames() {
    var words = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    var body = $("finished").querySelector("tbody");
    body.replaceChildren();
    var shown = games.filter(function (g) {
      var text = (g.bots.join(" ") + " " + g.reason).toLowerCase();
      return words.every(function (w) { return text.indexOf(w) >= 0; });
    });
    shown.slice(0, 200).forEach(function (g) {
      var tr = el("tr");
      tr.dataset.game = g.id;
      [g.id, g.bots[0] + " (" + g.roles[0] + ")", g.bots[1] + " (" + g.roles[1] + ")", result(g), g.reason, g.rounds]
        .forEach(function (v) { tr.appendChild(el("td", v)); });
      tr.addEventListener("click", function () { openGame(g.id); });
      body.appendChild(tr);
    });
    $("shown").textContent = shown.length + " of " + games.length + " games";
  }

  function drawTeam(t) {
    $("team-section").hidden = false;
    $("team-title").textContent = t.team;
    var list = $("team-failures");
    list.replaceChildren();
    if (t.failures.length === 0) list.appendChild(el("li", "none: the bot never crashed, raised, timed out or broke a limit"));
    t.failures.forEach(function (f) {
      list.appendChild(el("li", "game " + f.game + " (as " + f.role + " against " + f.opponent + "): " + f.words));
    });
    chart($("team-elo"), t.elo.map(function (p) { return [p[0], p[1]]; }), [0], "Elo after each part of the run");
  }

  function openGame(id) {
    fetch("/api/game/" + id).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (g) {
      replay = g;
      ply = g.views.length ? g.views.length - 1 : 0;
      $("replay").hidden = false;
      $("replay-title").textContent = "game " + g.id + ": " + g.bots[0] + " vs " + g.bots[1] + ", " + g.reason;
      var moves = $("replay-moves");
      moves.replaceChildren();
      g.plies.forEach(function (p, i) {
        var li = el("li", p.side + " " + p.reply + (p.verdict === "move" ? "" : " (" + p.verdict + ")"));
        li.addEventListener("click", function () { show(i + 1); });
        moves.appendChild(li);
      });
      if (g.error) $("replay-caption").textContent = g.error;
      show(ply);
    }).catch(function () { $("replay-title").textContent = "game " + id + " could not be loaded"; });
  }

  function show(n) {
    if (!replay) return;
    ply = Math.max(0, Math.min(n, replay.views.length - 1));
    var view = replay.views[ply];
    drawBoard($("replay-board"), view, replay.kinds);
    $("replay-caption").textContent = view ? view.caption : (replay.error || "");
    $("r-ply").textContent = "ply " + ply + " of " + replay.plies.length;
    $("replay-moves").querySelectorAll("li").forEach(function (li, i) {
      li.className = i + 1 === ply ? "arb-current" : "";
    });
  }

  function fetchGames() {
    var url = team ? "/api/team/" + encodeURIComponent(team) : "/api/games";
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (got) {
      if (team) { drawTeam(got); games = got.games; } else { games = got; }
      drawGames();
    });
  }

  function schedule(ms) {
    clearTimeout(timer);
    if (!document.hidden) timer = setTimeout(poll, ms);
  }

  function poll() {
    fetch("/api/state").then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (got) {
      state = got;
      fetchedAt = Date.now();
      drawStatus();
      drawStandings();
      drawInPlay();
      drawSprt();
      var next = state.running ? POLL_MS : ENDED_POLL_MS;
      if (state.done !== gamesOf) {
        var done = state.done;
        return fetchGames().then(function () { gamesOf = done; schedule(next); });
      }
      schedule(next);
    }).catch(function () {
      var s = $("status");
      s.className = "status lost";
      s.textContent = "arbiter does not answer (the run may have ended): the last state is shown";
      schedule(LOST_POLL_MS);
    });
  }

  if (team) $("back").hidden = false;
  $("filter").addEventListener("input", drawGames);
  $("r-first").addEventListener("click", function () { show(0); });
  $("r-back").addEventListener("click", function () { show(ply - 1); });
  $("r-step").addEventListener("click", function () { show(ply + 1); });
  $("r-last").addEventListener("click", function () { show(replay ? replay.views.length - 1 : 0); });
  // A hidden tab asks for nothing; shown again, it asks at once.
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) clearTimeout(timer); else poll();
  });
  setInterval(tickClocks, 200);
  poll();
})();
