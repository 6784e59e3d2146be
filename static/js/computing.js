// The "computing the figures" page (templates/admin/computing.html): ask for the page again every few
// seconds, without reloading it, and show it once it has its figures (the server answers 200 instead of 202).
// No <meta refresh>: a page that replaces itself on a timer is hard to read with a screen reader (WCAG 2.2.1).
(function () {
  "use strict";
  var box = document.getElementById("computing");
  if (!box) { return; }
  var url = box.getAttribute("data-url");
  var every = 1000 * Number(box.getAttribute("data-every") || 2);
  var bar = document.getElementById("computing-progress");
  var estimate = Number(box.getAttribute("data-estimate") || 0);
  var elapsed = Number(box.getAttribute("data-elapsed") || 0);
  var began = Date.now();
  function tick() {
    if (bar && estimate > 0) {
      bar.value = Math.min(estimate, elapsed + (Date.now() - began) / 1000);
    }
    fetch(url, {credentials: "same-origin", headers: {"Accept": "text/html"}}).then(function (response) {
      if (response.status === 200) {
        window.location.replace(url);
      } else {
        window.setTimeout(tick, every);
      }
    }, function () { window.setTimeout(tick, every); });
  }
  window.setTimeout(tick, every);
}());
