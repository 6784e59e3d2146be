// Shared by every HIT page: Enter submits, and a double click or a second Enter cannot send the
// form twice (the server would store one vote anyway, but the annotator should not wait twice).
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }
  var button = document.getElementById("submit");
  var sent = false;

  form.addEventListener("submit", function (event) {
    if (sent) { event.preventDefault(); return; }
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) { event.preventDefault(); return; }
    sent = true;
    button.disabled = true;
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "BUTTON" || target.tagName === "A")) { return; }
    event.preventDefault();
    if (typeof form.requestSubmit === "function") { form.requestSubmit(button); } else { form.submit(); }
  });

  // The skip link ("Skip to the HIT") lands on the HIT's first control, so the next key answers; without this
  // script it lands on the form itself and the next Tab reaches the control.
  function firstControl() {
    var all = form.querySelectorAll("input, button, select, textarea, summary, a[href], [tabindex]");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el === form || el.tabIndex < 0 || el.disabled || el.type === "hidden" || !el.getClientRects().length) { continue; }
      return el;
    }
    return null;
  }
  var skip = document.querySelector('a.skip[href="#hit-form"]');
  if (skip) {
    skip.addEventListener("click", function (event) {
      var first = firstControl();
      if (!first) { return; }
      event.preventDefault();
      first.focus();
    });
  }

  window.annotatorHit = { form: form };
})();
