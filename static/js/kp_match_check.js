// Match check: keys 1, 2 and 3 choose yes, no or faulty key point (Enter submits, in hit.js).
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !/^[1-3]$/.test(event.key)) { return; }
    var choice = form.querySelector('input[name=verdict][data-key="' + event.key + '"]');
    if (!choice) { return; }
    event.preventDefault();
    choice.checked = true;
    choice.focus();
  });
})();
