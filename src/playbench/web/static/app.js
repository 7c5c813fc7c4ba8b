/* playbench web app: episode lists (filter, sort), the replay stepper, live play, and the
   static export's page switching. Data reaches the page only as server-escaped HTML or through
   textContent; nothing here turns data into markup. */
(function () {
  "use strict";

  // ------------------------------------------------------------------ images
  // In the app an image's data-src is a URL; in the static export it is "img:<digest>", looked up
  // in the page's embedded JSON block. Either way a step's images load only when it is shown.
  var embedded = null;
  function imageSource(key) {
    if (key.indexOf("img:") === 0) {
      if (embedded === null) {
        var node = document.getElementById("pb-images");
        embedded = node ? JSON.parse(node.textContent) : {};
      }
      var data = embedded[key.slice(4)];
      return data ? "data:image/png;base64," + data : "";
    }
    return key;
  }
  function loadImages(container) {
    var imgs = container.querySelectorAll("img[data-src]");
    for (var i = 0; i < imgs.length; i++) {
      if (!imgs[i].getAttribute("src")) {
        var src = imageSource(imgs[i].getAttribute("data-src"));
        if (src) imgs[i].setAttribute("src", src);
      }
    }
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  // ------------------------------------------------------------------ episode lists
  function compareValues(a, b) {
    var x = Number(a), y = Number(b);
    if (a !== "" && b !== "" && !isNaN(x) && !isNaN(y)) return x - y;
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }

  function setupList(root) {
    var tbody = root.querySelector("tbody");
    if (!tbody) return;
    var rows = Array.prototype.slice.call(tbody.rows);
    var filters = root.querySelectorAll("[data-filter]");
    var count = root.querySelector("[data-count]");
    var keys = ["task", "success", "agent", "model"];
    function apply() {
      var want = {};
      for (var i = 0; i < filters.length; i++) {
        want[filters[i].getAttribute("data-filter")] = filters[i].value.trim().toLowerCase();
      }
      var shown = 0;
      rows.forEach(function (row) {
        var ok = true;
        keys.forEach(function (k) {
          if (want[k] && (row.getAttribute("data-" + k) || "").toLowerCase() !== want[k]) ok = false;
        });
        if (want.q && (row.getAttribute("data-q") || "").indexOf(want.q) < 0) ok = false;
        row.hidden = !ok;
        if (ok) shown++;
      });
      if (count) count.textContent = shown + " of " + rows.length + " episodes";
    }
    for (var i = 0; i < filters.length; i++) {
      filters[i].addEventListener("input", apply);
      filters[i].addEventListener("change", apply);
    }
    var form = root.querySelector("form");
    if (form) form.addEventListener("submit", function (e) { e.preventDefault(); });
    var heads = root.querySelectorAll("th[data-sort]");
    Array.prototype.forEach.call(heads, function (th) {
      function sort() {
        var col = Number(th.getAttribute("data-sort"));
        var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        Array.prototype.forEach.call(heads, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        var sign = dir === "ascending" ? 1 : -1;
        rows.sort(function (a, b) {
          return sign * compareValues(a.cells[col].getAttribute("data-v") || "", b.cells[col].getAttribute("data-v") || "");
        });
        rows.forEach(function (r) { tbody.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
    apply();
  }

  // ------------------------------------------------------------------ replay stepper
  var episodes = [];

  function setupEpisode(root, useHash) {
    var steps = root.querySelectorAll("article.step");
    var n = steps.length;
    if (!n) return;
    var input = root.querySelector("[data-step-input]");
    var range = root.querySelector("[data-step-range]");
    var ticks = root.querySelectorAll(".tick");
    var current = 0;
    function show(i, quiet) {
      i = Math.max(1, Math.min(n, i | 0 || 1));
      if (current) {
        steps[current - 1].hidden = true;
        ticks[current - 1].classList.remove("current");
      }
      var point = root.querySelector('.progress-line [data-goto="' + current + '"]');
      if (point) point.classList.remove("current");
      current = i;
      point = root.querySelector('.progress-line [data-goto="' + i + '"]');
      if (point) point.classList.add("current");
      steps[i - 1].hidden = false;
      loadImages(steps[i - 1]);
      if (i < n) loadImages(steps[i]); // the next step's images, so stepping on feels instant
      ticks[i - 1].classList.add("current");
      input.value = String(i);
      range.value = String(i);
      root.setAttribute("data-current", String(i));
      // "#s=N" names no element, so the browser never scrolls to it; the first step leaves the URL alone
      if (useHash && !quiet && window.history && history.replaceState) history.replaceState(null, "", "#s=" + i);
    }
    for (var k = 0; k < n; k++) steps[k].hidden = true;
    root.addEventListener("click", function (e) {
      var go = e.target.closest("[data-go]");
      if (go) {
        var where = go.getAttribute("data-go");
        show(where === "first" ? 1 : where === "last" ? n : where === "prev" ? current - 1 : current + 1);
        return;
      }
      var tick = e.target.closest("[data-goto]");
      if (tick) {
        e.preventDefault();
        show(Number(tick.getAttribute("data-goto")));
      }
    });
    input.addEventListener("change", function () { show(Number(input.value)); });
    range.addEventListener("input", function () { show(Number(range.value)); });
    var start = 1;
    var m = useHash && /^#s=(\d+)$/.exec(location.hash);
    if (m) start = Number(m[1]);
    show(start, true);
    episodes.push({
      root: root,
      key: function (e) {
        var map = { ArrowRight: 1, j: 1, ArrowLeft: -1, k: -1, PageDown: 10, PageUp: -10 };
        if (e.key in map) { show(current + map[e.key]); return true; }
        if (e.key === "Home") { show(1); return true; }
        if (e.key === "End") { show(n); return true; }
        return false;
      },
    });
  }

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    for (var i = 0; i < episodes.length; i++) {
      var ep = episodes[i];
      if (ep.root.offsetParent === null) continue; // not on screen (the export shows one at a time)
      if (ep.key(e)) { e.preventDefault(); return; }
      var link = null;
      if (e.key === "]") link = ep.root.querySelector("[data-episode-next]");
      if (e.key === "[") link = ep.root.querySelector("[data-episode-prev]");
      if (link) { e.preventDefault(); link.click(); }
      return;
    }
  });

  // ------------------------------------------------------------------ live play
  function setupPlay(root) {
    var base = "/play/s/" + encodeURIComponent(root.getAttribute("data-sid"));
    var seat = encodeURIComponent(root.getAttribute("data-seat"));
    var failures = 0;
    function panel() { return root.querySelector(".panel"); }
    function version() { var p = panel(); return p ? Number(p.getAttribute("data-version")) : -1; }
    function status() { var p = panel(); return p ? p.getAttribute("data-status") : ""; }
    function showError(text) {
      var p = panel();
      if (!p) return;
      var note = document.createElement("p");
      note.className = "error";
      note.setAttribute("role", "alert");
      note.textContent = text;
      p.insertBefore(note, p.firstChild);
    }
    function focusInput() {
      if (root.querySelector("button.legal")) return; // digits pick buttons; typing starts with a click
      var box = root.querySelector("textarea[name=action_text]");
      if (box) box.focus();
    }
    function refresh() {
      return fetch(base + "/panel?seat=" + seat, { headers: { Accept: "text/html" } })
        .then(function (r) { return r.text(); })
        .then(function (html) { root.innerHTML = html; focusInput(); });
    }
    function loop() {
      if (status() === "finished" || status() === "error" || status() === "discarded") return;
      fetch(base + "/wait?since=" + version() + "&seat=" + seat, { headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (d) {
          failures = 0;
          if (d.version !== version()) return refresh();
        })
        .catch(function () {
          failures++;
          return new Promise(function (resolve) { setTimeout(resolve, Math.min(10000, 500 * failures)); });
        })
        .then(loop);
    }
    root.addEventListener("submit", function (e) {
      var form = e.target;
      if (!form.hasAttribute("data-act")) return;
      e.preventDefault();
      var data = new URLSearchParams(new FormData(form));
      if (e.submitter && e.submitter.name) data.set(e.submitter.name, e.submitter.value);
      var buttons = form.querySelectorAll("button");
      for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
      fetch(form.getAttribute("action"), { method: "POST", body: data, headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (d) {
          if (!d.ok) return refresh().then(function () { showError(d.error || "the move was not accepted"); });
        })
        .catch(function () {
          for (var i = 0; i < buttons.length; i++) buttons[i].disabled = false;
          showError("the server could not be reached; try again");
        });
    });
    root.addEventListener("keydown", function (e) {
      if (e.target.name === "action_text" && e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        var send = root.querySelector("button[name=send]");
        if (send && e.target.value.trim()) e.target.form.requestSubmit(send);
      }
    });
    // MM-Escape's controls: a click on the current view is the look_at point, [x, y] in [0, 1]
    root.addEventListener("click", function (e) {
      var img = e.target.closest && e.target.closest("img[data-look-target]");
      if (!img) return;
      var form = root.querySelector("form.controls");
      if (!form) return;
      var box = img.getBoundingClientRect();
      var x = Math.min(1, Math.max(0, (e.clientX - box.left) / box.width));
      var y = Math.min(1, Math.max(0, (e.clientY - box.top) / box.height));
      form.querySelector("[data-look-x]").value = x.toFixed(3);
      form.querySelector("[data-look-y]").value = y.toFixed(3);
      form.querySelector("[data-look-output]").textContent = "[" + x.toFixed(3) + ", " + y.toFixed(3) + "]";
      var figure = img.parentNode;
      var mark = figure.querySelector(".look-mark");
      if (!mark) {
        mark = document.createElement("span");
        mark.className = "look-mark";
        figure.appendChild(mark);
      }
      mark.style.left = (100 * x) + "%";
      mark.style.top = (100 * y) + "%";
    });
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey || typing(e.target) || !/^[1-9]$/.test(e.key)) return;
      var button = root.querySelector('button.legal[data-key="' + e.key + '"]');
      if (button && !button.disabled) { e.preventDefault(); button.click(); }
    });
    focusInput();
    loop();
  }

  // ------------------------------------------------------------------ confirmations
  // A form with data-confirm (discarding a game) asks first; the server acts only on confirm=yes, and
  // without this script it answers with a page that asks instead.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.hasAttribute || !form.hasAttribute("data-confirm")) return;
    if (!window.confirm(form.getAttribute("data-confirm"))) { e.preventDefault(); return; }
    var flag = form.querySelector("[data-confirmed]");
    if (flag) flag.value = "yes";
  });

  // ------------------------------------------------------------------ static export
  function setupExport() {
    var results = document.getElementById("results");
    var pages = document.querySelectorAll("section.episode-page");
    function route() {
      var id = location.hash.slice(1);
      var target = id.indexOf("ep-") === 0 ? document.getElementById(id) : null;
      for (var i = 0; i < pages.length; i++) pages[i].hidden = pages[i] !== target;
      results.hidden = !!target;
      if (target) window.scrollTo(0, 0);
    }
    window.addEventListener("hashchange", route);
    route();
  }

  function init() {
    var exported = document.body.hasAttribute("data-export");
    Array.prototype.forEach.call(document.querySelectorAll("[data-episode-list]"), setupList);
    Array.prototype.forEach.call(document.querySelectorAll("[data-episode]"), function (root) {
      setupEpisode(root, !exported);
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-play-panel]"), setupPlay);
    if (exported) setupExport();
    document.documentElement.setAttribute("data-ready", "1");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
