// Key-point match: number keys toggle key points, 0 toggles "none"; "none" and key points exclude
// each other (the server refuses both, so the page never offers that state).
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }
  var none = form.querySelector("input[name=none]");
  var points = Array.prototype.slice.call(form.querySelectorAll("input[name=key_points]"));

  function exclusive(changed) {
    if (changed === none && none.checked) {
      points.forEach(function (p) { p.checked = false; });
    } else if (changed !== none && changed.checked) {
      none.checked = false;
    }
  }
  form.addEventListener("change", function (event) { exclusive(event.target); });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !/^[0-9]$/.test(event.key)) { return; }
    var box = form.querySelector('input[data-key="' + event.key + '"]');
    if (!box) { return; }
    event.preventDefault();
    box.checked = !box.checked;
    exclusive(box);
    box.focus();
  });
})();
