// A declared HIT's extractive questions (templates/hits/_declared_extractive.html): the answer is one mark of the
// passage (kept by declared_spans.js, which this script leaves alone) or the "unanswerable" box, never both.
// Ticking the box removes the mark (by its own Remove button, so declared_spans.js keeps its state and says so in
// its live line) and keeps the focus on the box; a mark made while the box is ticked unticks it. The server refuses
// both together anyway (annotator/declared/extractive.py from_form).
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }

  Array.prototype.forEach.call(form.querySelectorAll('fieldset.dq[data-kind="extractive"]'), function (q) {
    var box = q.querySelector("input[data-unanswerable]");
    var list = q.querySelector("[data-spans-list]");
    var said = q.querySelector("[data-spans-said]");
    if (!box || !list) { return; }
    box.addEventListener("change", function () {
      if (!box.checked) { return; }
      var removes = list.querySelectorAll("button.span-remove");
      Array.prototype.forEach.call(removes, function (button) { button.click(); });
      if (removes.length && said) { said.textContent = "Mark removed: the answer is now “" + box.closest("label").querySelector("span").textContent + "”."; }
      box.focus();
    });
    new MutationObserver(function () {  // declared_spans.js redraws the list on every change
      if (box.checked && list.children.length) {
        box.checked = false;
        box.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }).observe(list, { childList: true });
  });
})();
