// hallumaze on the report page: a row's evidence is its walk drawn over the case's maze (wall crossings, teleports,
// verified backtracks, lures, from the layer hallubench.tooling.hallumaze.page draws once per maze), the claimed
// against the verified counts, and its scores. See hallubench.tooling.report_html.view for `hb`.
(function () {
  "use strict";
  var hb = null; // the page's helpers, handed to every call

  function cellsOf(text) {
    return (text || "").split(" ").filter(Boolean).map(function (item) {
      var parts = item.split(","); return [Number(parts[0]), Number(parts[1])];
    });
  }
  function intsOf(text) { return (text || "").split(" ").filter(Boolean).map(Number); }
  function same(a, b) { return a[0] === b[0] && a[1] === b[1]; }

  function backtrackMoves(path, teleports) {
    // The scorer's rule (a move back onto the cell below the top of the walk's stack), as draw.py applies it.
    var stack = path.length ? [path[0]] : [];
    var jumped = new Set(teleports);
    var found = [];
    for (var i = 1; i < path.length; i++) {
      var target = path[i];
      if (jumped.has(i)) { if (!same(target, stack[stack.length - 1])) stack.push(target); continue; }
      if (same(target, path[i - 1])) continue;
      if (stack.length >= 2 && same(target, stack[stack.length - 2])) { stack.pop(); found.push(i); }
      else if (!same(target, stack[stack.length - 1])) stack.push(target);
    }
    return found;
  }

  function colour(key) {
    var item = (hb.data().legend || []).find(function (entry) { return entry[0] === key; });
    return item ? item[2] : "#000";
  }

  function mazeSvg(layer, trajectory) {
    var u = layer.unit, m = layer.margin;
    function centre(c) { return [m + (c[1] + 0.5) * u, m + (c[0] + 0.5) * u]; }
    var path = cellsOf(trajectory.cells);
    var walls = new Set(intsOf(trajectory.hallucination_moves));
    var teleports = intsOf(trajectory.teleport_moves);
    var jumped = new Set(teleports);
    var parts = [layer.svg];
    backtrackMoves(path, teleports).forEach(function (i) {
      var a = centre(path[i - 1]), b = centre(path[i]);
      parts.push('<line class="backtrack" x1="' + a[0] + '" y1="' + a[1] + '" x2="' + b[0] + '" y2="' + b[1] + '" stroke="' + colour("backtrack") + '" stroke-width="' + Math.max(2, u / 4) + '" stroke-linecap="round" opacity="0.7"><title>move ' + i + ': backtrack</title></line>');
    });
    if (path.length) {
      var points = path.map(function (c) { return centre(c).join(","); }).join(" ");
      parts.push('<polyline class="walk" points="' + points + '" fill="none" stroke="' + colour("walk") + '" stroke-width="' + Math.max(1, u / 10) + '" stroke-linejoin="round" stroke-linecap="round" opacity="0.8"/>');
    }
    for (var i = 1; i < path.length; i++) {
      var a = centre(path[i - 1]), b = centre(path[i]);
      if (walls.has(i)) {
        var mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2, s = u / 4;
        parts.push('<path class="crossing" d="M' + (mx - s) + "," + (my - s) + "L" + (mx + s) + "," + (my + s) + "M" + (mx - s) + "," + (my + s) + "L" + (mx + s) + "," + (my - s) + '" stroke="' + colour("wall") + '" stroke-width="' + Math.max(1.5, u / 8) + '"><title>move ' + i + ": through a wall</title></path>");
      } else if (jumped.has(i)) {
        parts.push('<line class="teleport" x1="' + a[0] + '" y1="' + a[1] + '" x2="' + b[0] + '" y2="' + b[1] + '" stroke="' + colour("teleport") + '" stroke-dasharray="4 3"><title>move ' + i + ": teleport</title></line>");
      }
    }
    var side = layer.side;
    return '<svg xmlns="http://www.w3.org/2000/svg" width="' + side + '" height="' + side + '" viewBox="0 0 ' + side + " " + side + '" role="img" aria-label="the walk on the maze">' + parts.join("") + "</svg>";
  }

  function legendList() {
    var list = hb.el("ul", "legend");
    (hb.data().legend || []).forEach(function (entry) {
      var li = hb.el("li");
      var swatch = hb.el("span", "swatch");
      swatch.style.background = entry[2];
      li.appendChild(swatch);
      li.appendChild(document.createTextNode(entry[1]));
      list.appendChild(li);
    });
    return list;
  }

  function mazeView(entry) {
    var row = entry.row || {}, scores = row.scores;
    var box = hb.el("div");
    if (!scores || typeof scores !== "object") { box.appendChild(hb.el("p", "note", "No scores: " + (row.detail || row.verdict))); return box; }
    var title = hb.el("h4", "maze-title");
    title.appendChild(hb.withAbbr("trial " + entry.case_id + " — score " + hb.fmt(scores.score) + ", SR " + hb.fmt(scores.sr, 0) + ", " + hb.fmt(scores.hc) + " move(s) through walls"));
    box.appendChild(title);
    var view = hb.el("div", "maze-view");
    var layer = (hb.data().mazes || {})[(entry.view || {}).maze];
    if (layer && scores.trajectory) {
      var holder = hb.el("div", "maze-picture");
      holder.innerHTML = mazeSvg(layer, scores.trajectory); // built from the case's maze and numbers only
      view.appendChild(holder);
    }
    var side = hb.el("div");
    side.appendChild(legendList());
    var claims = scores.claims || {};
    function claim(name) { var c = claims[name] || {}; return "claimed " + hb.fmt(c.claimed) + ", verified " + hb.fmt(c.verified); }
    var lures = scores.lures || {};
    side.appendChild(hb.facts([
      ["BT (backtracks)", claim("backtrack")], ["HC (wall crossings)", claim("hallucination")], ["LT (loops)", claim("loop")],
      ["moves", scores.moves], ["teleports", scores.teleports], ["FHR (first wall crossing, move)", scores.fhr],
      ["lures", "exposures " + hb.fmt(lures.exposures) + ", followed " + hb.fmt(lures.follows) + ", resisted " + hb.fmt(lures.resists)],
      ["MEI", scores.mei], ["BRS", scores.brs], ["CE", scores.ce], ["v1.1", (scores.v11 || {}).score]
    ]));
    view.appendChild(side);
    box.appendChild(view);
    return box;
  }

  window.hallubenchView = function (entry, helpers) {
    hb = helpers;
    return mazeView(entry);
  };
})();
