// The project page's export: a big project's zip takes seconds to build, and a download gives the page no
// sign of its own. On submit the form gets a random ticket; the server sends it back as a cookie with the
// zip (admin.export), so the page knows when the download has started and says so meanwhile.
(function () {
  "use strict";
  var form = document.getElementById("export");
  if (!form) { return; }
  var status = document.getElementById("export-progress");
  var warning = document.getElementById("export-formula-cells");
  var button = form.querySelector("button[type=submit]");
  var FORMULA = "export-formula-cells";

  // The cells of the shared task's own files that a spreadsheet would run (admin.export's cookie): those files
  // keep their bytes, so the organiser is told where the cells are before opening them.
  function showFormulaCells() {
    var found = document.cookie.split("; ").filter(function (c) { return c.indexOf(FORMULA + "=") === 0; })[0];
    if (!found || !warning) { return; }
    var message;
    try { message = JSON.parse(decodeURIComponent(found.slice(FORMULA.length + 1))); } catch (e) { return; }
    warning.textContent = "";
    var head = document.createElement("p");
    var one = message.count === 1;
    head.textContent = message.count + (one ? " cell" : " cells") + " of the shared task's own files " +
      (one ? "starts" : "start") + " with a character a spreadsheet runs as a formula (=, +, -, @). Those " +
      "files are kept byte for byte, so " + (one ? "it is" : "they are") + " left as " + (one ? "it is" : "they are") +
      ": import their columns as text. " +
      (message.cells.length < message.count ? "The first " + message.cells.length + " (all of them in " :
        "(also in ") + message.listing + " in the zip):";
    var list = document.createElement("ul");
    message.cells.forEach(function (place) {
      var item = document.createElement("li");
      item.textContent = place;
      list.appendChild(item);
    });
    warning.appendChild(head);
    warning.appendChild(list);
    warning.hidden = false;
  }

  form.addEventListener("submit", function () {
    document.cookie = FORMULA + "=; max-age=0; path=" + window.location.pathname;
    if (warning) { warning.hidden = true; }
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
        if (done) { showFormulaCells(); }
      } else {
        status.textContent = "Preparing the export\u2026 " + Math.round((Date.now() - began) / 1000) + " s";
      }
    }, 250);
  });
}());
