/* playbench leaderboard site: sort a table by the column whose heading is clicked (or focused and
   Enter/Space). Progressive: every table is complete without this script. Values come from the cells'
   data-v attributes (numbers sort as numbers; an empty value sorts last either way); nothing here
   turns data into markup. */
(function () {
  "use strict";

  function compare(a, b) {
    var x = Number(a), y = Number(b);
    if (!isNaN(x) && !isNaN(y)) return x - y;
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }

  function setup(table) {
    var body = table.tBodies[0];
    if (!body || !table.tHead) return;
    var heads = table.tHead.querySelectorAll("th[data-col]");
    Array.prototype.forEach.call(heads, function (th) {
      function sort() {
        var col = Number(th.getAttribute("data-col"));
        var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        var sign = dir === "ascending" ? 1 : -1;
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r, s) {
          var a = r.cells[col] ? r.cells[col].getAttribute("data-v") || "" : "";
          var b = s.cells[col] ? s.cells[col].getAttribute("data-v") || "" : "";
          if (a === "" || b === "") return (a === "") - (b === "");
          return sign * compare(a, b);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("table.pb-sortable"), setup);
    document.documentElement.setAttribute("data-site-ready", "1");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
