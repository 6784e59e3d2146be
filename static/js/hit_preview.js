// The admin's preview of a declared HIT (templates/admin/declared_new.html): the frame takes the height of the
// HIT it shows, so the whole HIT reads in the page without a second scroll bar. The framed page reports its
// height (js/preview_frame.js); the frame is sandboxed without same-origin, so only a message can say it.
// Setting the height from a script is allowed by the Content-Security-Policy, a style attribute is not.
(function () {
  "use strict";
  var frame = document.getElementById("hit-preview");
  if (!frame) { return; }
  window.addEventListener("message", function (event) {
    if (event.source !== frame.contentWindow || !event.data || event.data.kind !== "hit-preview-height") { return; }
    var height = Number(event.data.height);
    if (height > 0 && height < 100000) { frame.style.height = Math.ceil(height) + "px"; }
  });
  // The frame may have loaded and reported before this script ran (it waits for the style sheet; the frame does
  // not), and a report sent before the listener above is lost: ask it to report again. A frame whose script has not
  // run yet misses the question, and reports by itself once it runs.
  if (frame.contentWindow) { frame.contentWindow.postMessage({ kind: "hit-preview-ask" }, "*"); }
})();
