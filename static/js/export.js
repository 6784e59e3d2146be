// The project page's export: a big project's zip takes seconds to build, and a download gives the page no
// sign of its own. On submit the form gets a random ticket; the server sends it back as a cookie with the
// zip (admin.export), so the page knows when the download has started and says so meanwhile.
(function () {
  "use strict";
  var form = document.getElementById("export");
  if (!form) { return; }
  var status = document.getElementById("export-progress");
  var button = form.querySelector("button[type=submit]");
  form.addEventListener("submit", function () {
    var ticket = Math.random().toString(36).slice(2, 12) + Date.now().toString(36);
    form.elements.ticket.value = ticket;
    button.disabled = true;
    status.textContent = "Preparing the export\u2026 (a big project's takes a few seconds)";
    var began = Date.now();
    var timer = window.setInterval(function () {
      var done = document.cookie.split("; ").indexOf("export-ticket=" + ticket) >= 0;
      if (done || Date.now() - began > 300000) {
        window.clearInterval(timer);
        button.disabled = false;
        status.textContent = done ? "The export is downloaded (" + Math.round((Date.now() - began) / 100) / 10 +
          " s)." : "";
      } else {
        status.textContent = "Preparing the export\u2026 " + Math.round((Date.now() - began) / 1000) + " s";
      }
    }, 250);
  });
}());
