// The game browser: a paged, sortable, filterable list of every game, and a replay of the
// game opened. It draws any game from the views the report writes (a grid of cells, each a
// kind and a label) and knows no game's rules. The page holds only the list; the replays
// are scripts beside it, one per block of games, loaded when a game of the block is opened
// (a page opened from the disk may load scripts, not fetch files).
(function () {
  "use strict";
  var root = document.getElementById("games");
  if (!root) return;
  var $ = function (id) { return document.getElementById(id); };
  var index = JSON.parse($("arb-games-index").textContent);
  var PAGE = 100;
  var PER_BLOCK = index.games_per_block;
  var fetched = {}, arrived = {}, loaded = [];
  var roles = index.roles;
  var fills = {};
  index.kinds.forEach(function (k) { fills[k.name] = k; });

  // The list: each game as an object, filtered and sorted on demand, drawn a page at a time.
  var games = index.games.map(function (g, line) {
    var winner = g[3];
    return {
      line: line, id: g[0], p: [index.names[g[1]], index.names[g[2]]], winner: winner,
      reason: index.reasons[g[4]], rounds: g[5], detail: g[6],
      result: winner < 0 ? "tie" : index.names[g[1 + winner]] + " won", text: null
    };
  });
  var shown = games.slice();
  var sortKey = "id", sortUp = true, page = 0, openLine = -1;

  root.querySelector("th.arb-role0").textContent = roles[0];
  root.querySelector("th.arb-role1").textContent = roles[1];

  function sortValue(g, key) {
    if (key === "p0") return g.p[0];
    if (key === "p1") return g.p[1];
    return g[key];
  }

  // What the filter matches a game against, made the first time it is filtered.
  function searchText(g) {
    if (g.text === null) {
      g.text = (g.id + " " + g.p[0] + " " + g.p[1] + " " + g.result + " " + g.reason + " " +
        g.detail).toLowerCase();
    }
    return g.text;
  }

  function applyFilter() {
    var words = $("arb-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    shown = words.length === 0 ? games.slice() : games.filter(function (g) {
      var text = searchText(g);
      return words.every(function (w) { return text.indexOf(w) >= 0; });
    });
    shown.sort(function (a, b) {
      var x = sortValue(a, sortKey), y = sortValue(b, sortKey);
      var order = x < y ? -1 : x > y ? 1 : a.id - b.id;
      return sortUp ? order : -order;
    });
    page = 0;
    drawList();
  }

  function cell(tag, text, cls) {
    var el = document.createElement(tag);
    el.textContent = text;
    if (cls) el.className = cls;
    return el;
  }

  function drawList() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(Math.max(page, 0), pages - 1);
    var body = root.querySelector("#arb-table tbody");
    var rows = document.createDocumentFragment();
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (g) {
      var tr = document.createElement("tr");
      tr.dataset.game = g.id;
      tr.dataset.line = g.line;
      if (g.line === openLine) tr.className = "arb-open";
      tr.appendChild(cell("td", g.id, "arb-num"));
      tr.appendChild(cell("td", g.p[0], g.winner === 0 ? "arb-win" : ""));
      tr.appendChild(cell("td", g.p[1], g.winner === 1 ? "arb-win" : ""));
      tr.appendChild(cell("td", g.result));
      var reason = cell("td", g.reason);
      if (g.detail) reason.title = g.detail;
      tr.appendChild(reason);
      tr.appendChild(cell("td", g.rounds, "arb-num"));
      rows.appendChild(tr);
    });
    body.replaceChildren(rows);
    $("arb-count").textContent = shown.length + " of " + games.length + " games";
    $("arb-page").textContent = "page " + (page + 1) + " of " + pages;
    $("arb-first-page").disabled = $("arb-prev").disabled = page === 0;
    $("arb-next").disabled = $("arb-last-page").disabled = page >= pages - 1;
    root.querySelectorAll("#arb-table th").forEach(function (th) {
      th.classList.toggle("arb-sorted", th.dataset.sort === sortKey);
      th.classList.toggle("arb-up", th.dataset.sort === sortKey && sortUp);
    });
  }

  // The replay: a game's line is parsed when it is opened, into every position of the game.
  var game = null, ply = 0, timer = null;

  // Each block's script calls this with its number, its games' ids and its games' lines,
  // each deflated on its own and in base64.
  window.arbiterReplayBlock = function (k, ids, data) {
    arrived[k] = { ids: ids, data: data };
  };

  function blockFile(k) {
    return index.replays + String(k).padStart(6, "0") + ".js";
  }

  // Loads the script of block `k`: a promise of what it handed arbiterReplayBlock.
  function loadBlock(k) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      var file = blockFile(k);
      script.onload = function () {
        script.remove();
        var got = arrived[k];
        delete arrived[k];
        if (got) {
          // Which blocks the page has loaded, in order: for whoever inspects the page.
          loaded.push(k);
          root.dataset.loadedBlocks = loaded.join(" ");
          resolve(got);
        } else reject(new Error(file + " does not hold the replays of block " + k));
      };
      script.onerror = function () {
        script.remove();
        reject(new Error(file + " could not be read: the replays are files beside the page, " +
          "in its folder " + index.replays + "; keep (or copy) the report's folder whole"));
      };
      script.src = file;
      document.head.appendChild(script);
    });
  }

  // The games of block `k`, loaded once: a promise of their ids and packed lines.
  function block(k) {
    if (fetched[k]) return fetched[k];
    fetched[k] = loadBlock(k);
    // A block that failed is tried again the next time one of its games is opened.
    fetched[k].catch(function () { delete fetched[k]; });
    return fetched[k];
  }

  // A game's line, deflated and in base64, inflated: a promise of its text.
  function inflate(packed) {
    if (typeof packed !== "string") return Promise.reject(new Error("no replay of this game"));
    var text = atob(packed), bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text();
  }

  function decode(text) {
    var g = JSON.parse(text);
    var cells = g[1] || [], strings = g[2];
    var positions = [];
    if (g[3]) {
      var now = { cols: g[0], cells: g[3], caption: strings[g[4]], changed: [] };
      positions.push(now);
      g[5].forEach(function (p) {
        var change = p[6], next;
        if (Array.isArray(change)) {
          next = { cols: now.cols, cells: now.cells.slice(), changed: [] };
          for (var i = 0; i < change.length; i += 2) {
            next.cells[change[i]] = change[i + 1];
            next.changed.push(change[i]);
          }
        } else {
          next = { cols: change.cols, cells: change.cells, changed: [] };
        }
        next.caption = strings[p[5]];
        positions.push(next);
        now = next;
      });
    }
    var plies = g[5].map(function (p) {
      return {
        side: strings[p[0]], reply: p[1], verdict: strings[p[2]],
        reason: p[3] < 0 ? "" : strings[p[3]], time: p[4]
      };
    });
    return { cells: cells, positions: positions, plies: plies, error: g[6] };
  }

  function fillOf(kind) {
    if (fills[kind]) return fills[kind].fill;
    var h = 0;
    for (var i = 0; i < kind.length; i++) h = (h * 31 + kind.charCodeAt(i)) % 360;
    return "hsl(" + h + ",55%,55%)";
  }

  function inkFor(fill) {
    var m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(fill);
    if (!m) return "#000";
    var y = 0.299 * parseInt(m[1], 16) + 0.587 * parseInt(m[2], 16) + 0.114 * parseInt(m[3], 16);
    return y < 128 ? "#fff" : "#000";
  }

  function markClass(verdict) {
    if (verdict === "move") return "";
    if (verdict === "opening") return "arb-opening";
    if (verdict === "illegal") return "arb-mark arb-illegal";
    if (verdict === "failed") return "arb-mark arb-failed";
    return "arb-mark arb-special";
  }

  function plyText(p) {
    var reply = typeof p.reply === "string" ? p.reply : JSON.stringify(p.reply);
    return p.side + " " + reply;
  }

  function verdictText(p) {
    return p.verdict + (p.reason ? " (" + p.reason + ")" : "");
  }

  function drawBoard() {
    var board = $("arb-board");
    var pos = game.positions[ply];
    if (!pos) { board.replaceChildren(); return; }
    var changed = {};
    pos.changed.forEach(function (i) { changed[i] = true; });
    var cols = pos.cols, rows = cols ? pos.cells.length / cols : 0;
    board.style.gridTemplateColumns = "repeat(" + cols + ", auto)";
    var out = document.createDocumentFragment(), kinds = {};
    pos.cells.forEach(function (id, i) {
      var kind = game.cells[id][0], label = game.cells[id][1];
      var div = cell("div", label, "arb-cell" + (kind === "off" ? " arb-off" : "") +
        (changed[i] ? " arb-changed" : ""));
      div.dataset.row = Math.floor(i / cols);
      div.dataset.col = i % cols;
      div.dataset.cell = label ? kind + ":" + label : kind;
      if (kind !== "off") {
        var fill = fillOf(kind);
        div.style.background = fill;
        div.style.color = inkFor(fill);
        div.title = (fills[kind] ? fills[kind].meaning : kind) + " (" + div.dataset.row + ", " +
          div.dataset.col + ")";
        kinds[kind] = true;
      }
      out.appendChild(div);
    });
    board.dataset.rows = rows;
    board.dataset.cols = cols;
    board.replaceChildren(out);
    var legend = document.createDocumentFragment();
    var names = index.kinds.map(function (k) { return k.name; });
    Object.keys(kinds).forEach(function (k) { if (names.indexOf(k) < 0) names.push(k); });
    names.filter(function (k) { return kinds[k]; }).forEach(function (k) {
      var li = document.createElement("li");
      var swatch = cell("span", "", "arb-swatch");
      swatch.style.background = fillOf(k);
      li.appendChild(swatch);
      li.appendChild(document.createTextNode(fills[k] ? fills[k].meaning : k));
      legend.appendChild(li);
    });
    $("arb-legend").replaceChildren(legend);
    $("arb-caption").textContent = pos.caption || "";
  }

  function show(n) {
    if (!game) return;
    ply = Math.min(Math.max(n, 0), game.plies.length);
    $("arb-replay").dataset.ply = ply;
    drawBoard();
    $("arb-plyno").textContent = "ply " + ply + " of " + game.plies.length;
    var last = $("arb-last");
    if (ply === 0) {
      last.textContent = "start position";
      last.className = "";
    } else {
      var p = game.plies[ply - 1];
      last.textContent = "ply " + ply + ": " + plyText(p) + " \u2014 " + verdictText(p);
      last.className = markClass(p.verdict) ? "arb-error" : "";
    }
    var list = $("arb-moves");
    var old = list.querySelector("li.arb-current");
    if (old) old.classList.remove("arb-current");
    if (ply > 0) {
      var li = list.children[ply - 1];
      li.classList.add("arb-current");
      var top = li.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - li.offsetHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    } else {
      list.scrollTop = 0;
    }
    $("arb-first").disabled = $("arb-back").disabled = ply === 0;
    $("arb-step").disabled = $("arb-last-ply").disabled = ply === game.plies.length;
  }

  function stopPlaying() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("arb-play").textContent = "play";
  }

  function togglePlay() {
    if (!game) return;
    if (timer !== null) { stopPlaying(); return; }
    if (ply === game.plies.length) show(0);
    $("arb-play").textContent = "pause";
    timer = setInterval(function () {
      if (ply >= game.plies.length) { stopPlaying(); return; }
      show(ply + 1);
    }, 400);
  }

  var opening = 0;

  function open(line) {
    stopPlaying();
    var ticket = ++opening;
    var panel = $("arb-replay");
    panel.dataset.game = "";
    var k = Math.floor(line / PER_BLOCK);
    block(k).then(function (got) {
      var at = line % PER_BLOCK;
      // A block written for another journal (the page kept, its folder rewritten).
      if (got.ids[at] !== games[line].id) {
        throw new Error(blockFile(k) + " holds game " + got.ids[at] + " where this page " +
          "lists game " + games[line].id + ": it was written with another report; reload " +
          "the page");
      }
      return inflate(got.data[at]);
    }).then(function (text) {
      // A game opened after this one wins.
      if (ticket === opening) showGame(line, decode(text));
    }).catch(function (e) {
      if (ticket !== opening) return;
      game = null;
      $("arb-board").replaceChildren();
      $("arb-moves").replaceChildren();
      $("arb-legend").replaceChildren();
      panel.hidden = false;
      $("arb-title").textContent = "Game " + games[line].id;
      $("arb-result").textContent = "The replay cannot be read: " + (e && e.message || e);
      $("arb-result").className = "arb-error";
    });
  }

  function showGame(line, decoded) {
    var g = games[line];
    game = decoded;
    openLine = line;
    root.querySelectorAll("#arb-table tbody tr").forEach(function (tr) {
      tr.classList.toggle("arb-open", Number(tr.dataset.line) === line);
    });
    var panel = $("arb-replay");
    panel.hidden = false;
    panel.dataset.game = g.id;
    $("arb-title").textContent = "Game " + g.id + ": " + g.p[0] + " (" + roles[0] + ") v " +
      g.p[1] + " (" + roles[1] + ")";
    var result = (g.winner < 0 ? "Tie" : "Won by " + g.p[g.winner] + " (" + roles[g.winner] + ")") +
      ": " + g.reason + (g.detail ? " \u2014 " + g.detail : "");
    if (game.error) {
      result += ". This game does not replay (ply " + game.error[0] + ": " + game.error[1] + ")";
    }
    $("arb-result").textContent = result;
    $("arb-result").className = game.error ? "arb-error" : "";
    var moves = document.createDocumentFragment();
    game.plies.forEach(function (p, i) {
      var li = cell("li", plyText(p), markClass(p.verdict));
      li.dataset.ply = i + 1;
      li.dataset.verdict = p.verdict;
      if (p.verdict !== "move") li.appendChild(cell("span", verdictText(p), "arb-verdict"));
      if (p.time !== null) li.appendChild(cell("span", p.time + " ms", "arb-time"));
      moves.appendChild(li);
    });
    $("arb-moves").replaceChildren(moves);
    show(0);
  }

  // Wiring.
  $("arb-filter").addEventListener("input", applyFilter);
  root.querySelectorAll("#arb-table th").forEach(function (th) {
    th.addEventListener("click", function () {
      if (sortKey === th.dataset.sort) sortUp = !sortUp; else { sortKey = th.dataset.sort; sortUp = true; }
      applyFilter();
    });
  });
  $("arb-prev").addEventListener("click", function () { page--; drawList(); });
  $("arb-next").addEventListener("click", function () { page++; drawList(); });
  $("arb-first-page").addEventListener("click", function () { page = 0; drawList(); });
  $("arb-last-page").addEventListener("click", function () { page = Infinity; drawList(); });
  root.querySelector("#arb-table tbody").addEventListener("click", function (e) {
    var tr = e.target.closest("tr");
    if (tr && tr.dataset.line !== undefined) {
      open(Number(tr.dataset.line));
      history.replaceState(null, "", "#game-" + tr.dataset.game);
    }
  });
  $("arb-moves").addEventListener("click", function (e) {
    var li = e.target.closest("li");
    if (li) { stopPlaying(); show(Number(li.dataset.ply)); }
  });
  $("arb-first").addEventListener("click", function () { stopPlaying(); show(0); });
  $("arb-back").addEventListener("click", function () { stopPlaying(); show(ply - 1); });
  $("arb-step").addEventListener("click", function () { stopPlaying(); show(ply + 1); });
  $("arb-last-ply").addEventListener("click", function () { stopPlaying(); show(game.plies.length); });
  $("arb-play").addEventListener("click", togglePlay);
  document.addEventListener("keydown", function (e) {
    if (!game || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    var keys = {
      ArrowRight: function () { show(ply + 1); }, ArrowLeft: function () { show(ply - 1); },
      Home: function () { show(0); }, End: function () { show(game.plies.length); }
    };
    if (keys[e.key]) { stopPlaying(); keys[e.key](); e.preventDefault(); }
    // A focused button answers the space bar itself.
    else if (e.key === " " && root.contains(e.target) && e.target.tagName !== "BUTTON") {
      togglePlay();
      e.preventDefault();
    }
  });

  applyFilter();
  // When the list was first drawn, in ms since the page started loading: measured in tests.
  root.dataset.readyMs = performance.now().toFixed(1);
  var wanted = /^#game-(\d+)$/.exec(location.hash);
  if (wanted) {
    var at = games.findIndex(function (g) { return String(g.id) === wanted[1]; });
    if (at >= 0) open(at);
  }
})();
