// Inside the admin's preview frame of a declared HIT (the HIT template drawn with definition_preview):
// tell the page around it how tall the HIT is, now and whenever it changes (a question shown by `when`,
// the guidelines or keys opened), so that js/hit_preview.js fits the frame to it.
(function () {
  "use strict";
  if (window.parent === window) { return; }
  var last = 0;
  function report() {
    // The root's own box, not its scrollHeight: that never falls below the frame's height, so the frame
    // would only ever grow (a question hidden by `when` left a blank space).
    var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) { return; }
    last = height;
    window.parent.postMessage({ kind: "hit-preview-height", height: height }, "*");
  }
  report();
  window.addEventListener("load", report);
  // The page around asks once it listens (js/hit_preview.js): the reports sent before then went unheard.
  window.addEventListener("message", function (event) {
    if (event.source !== window.parent || !event.data || event.data.kind !== "hit-preview-ask") { return; }
    last = 0;
    report();
  });
  if (typeof ResizeObserver === "function") { new ResizeObserver(report).observe(document.documentElement); }
})();
