// The static explorables of swingby (swingby/explorable.py): each .sb-explorable holds its
// frames (lossless WebP, base64) and, per grid point, the index of its frame; its controls
// pick a grid point and this script swaps the image. Nothing is fetched. Opened with
// #selftest, the page moves every control through every value, checks that each frame
// decodes, that each move shows the figure of its grid point, and that each control changes
// the figure somewhere on the grid, and writes the outcome into the DOM.
(function () {
  "use strict";
  function setUp(root) {
    if (root.sbShow) return;
    var data = JSON.parse(root.querySelector("script.sb-frames").textContent);
    var img = root.querySelector("img.sb-frame");
    var controls = Array.prototype.slice.call(root.querySelectorAll("[data-axis]"));
    root.sbFrame = function () {
      var k = 0;
      controls.forEach(function (c, i) { k = k * data.sizes[i] + Number(c.value); });
      return data.index[k];
    };
    root.sbShow = function () {
      var words = controls.map(function (c, i) {
        var text = data.labels[i][Number(c.value)];
        var out = root.querySelector('output[for="' + c.id + '"]');
        if (out) out.textContent = text;
        if (c.type === "range") c.setAttribute("aria-valuetext", text);
        return data.names[i] + " = " + text;
      });
      var f = root.sbFrame(), status = root.querySelector(".sb-status");
      img.src = "data:image/webp;base64," + data.frames[f];
      img.alt = data.alt + " (" + words.join(", ") + ")" + (data.titles[f] ? ": " + data.titles[f] : "");
      if (status && root.sbMoved) status.textContent = "Showing " + words.join(", ") + ".";
    };
    root.sbControls = controls;
    root.sbData = data;
    controls.forEach(function (c) {
      c.addEventListener("input", function () { root.sbMoved = true; root.sbShow(); });
      c.addEventListener("change", function () { root.sbMoved = true; root.sbShow(); });
    });
    root.sbShow();
  }

  function decodes(src) {
    return new Promise(function (resolve) {
      var probe = new Image();
      probe.onload = function () { resolve(probe.naturalWidth > 0); };
      probe.onerror = function () { resolve(false); };
      probe.src = src;
    });
  }

  // whether moving control i alone changes the figure at some point of the grid
  function changesSomewhere(data, i) {
    var stride = 1;
    for (var j = i + 1; j < data.sizes.length; j++) stride *= data.sizes[j];
    for (var k = 0; k < data.index.length; k++) {
      var v = Math.floor(k / stride) % data.sizes[i];
      if (v + 1 < data.sizes[i] && data.index[k] !== data.index[k + stride]) return true;
    }
    return false;
  }

  function selfTest(root) {
    var img = root.querySelector("img.sb-frame"), errors = [], moves = 0;
    var checks = root.sbData.frames.map(function (f) { return decodes("data:image/webp;base64," + f); });
    var start = root.sbControls.map(function (c) { return c.value; });
    root.sbControls.forEach(function (c, i) {
      var n = c.tagName === "SELECT" ? c.options.length : Number(c.max) + 1;
      for (var v = 0; v < n; v++) {
        c.value = String(v);
        c.dispatchEvent(new Event("input", { bubbles: true }));
        moves++;
        if (img.src !== "data:image/webp;base64," + root.sbData.frames[root.sbFrame()]) {
          errors.push("control " + (i + 1) + " did not show its figure at value " + (v + 1));
        }
      }
      if (!changesSomewhere(root.sbData, i)) errors.push("control " + (i + 1) + " never changes the figure");
      c.value = start[i];
      root.sbShow();
    });
    return Promise.all(checks).then(function (ok) {
      var bad = ok.filter(function (x) { return !x; }).length;
      if (bad) errors.push(bad + " of " + ok.length + " frames did not decode");
      var out = document.createElement("pre");
      out.className = "sb-selftest";
      out.dataset.status = errors.length ? "fail" : "pass";
      out.textContent = JSON.stringify({ controls: root.sbControls.length, moves: moves, frames: ok.length, errors: errors });
      root.appendChild(out);
    });
  }

  function run() {
    var roots = Array.prototype.slice.call(document.querySelectorAll(".sb-explorable"));
    roots.forEach(setUp);
    if (location.hash === "#selftest" && !window.sbSelfTested) {
      window.sbSelfTested = true;
      Promise.all(roots.map(selfTest)).then(function () { document.body.dataset.sbSelftest = "done"; });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
