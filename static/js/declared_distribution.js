// A declared campaign's distribution questions (templates/hits/_declared_distribution.html,
// annotator/declared/distribution.py): one number input per option. The running sum and what is left to share
// are said below the inputs as they change (a polite live region), and a submit while a shown question's shares
// do not add up to its total is stopped: the sum is said beside the question (role="alert", the server's words)
// and its first input takes the focus. The check runs on the document's capture phase, before hit.js marks the
// form as sent; those words go once the sum is right. A question hidden by its `when` (the "dq-visibility" event
// of the HIT's script) has its inputs emptied and disabled, so nothing of it is sent.
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }
  var lists = Array.prototype.slice.call(document.querySelectorAll("[data-distribution-of]"));

  function state(list) {
    var boxes = Array.prototype.slice.call(list.querySelectorAll("input.share-input"));
    var total = Number(list.dataset.total);
    var sum = 0;
    var bad = null;
    boxes.forEach(function (b) {
      var text = b.value.trim();
      if (text === "") { return; }
      if (!/^\d+$/.test(text)) { bad = bad || b; return; }
      sum += Number(text);
    });
    var filled = boxes.some(function (b) { return b.value.trim() !== ""; });
    return { boxes: boxes, total: total, sum: sum, bad: bad, filled: filled };
  }

  function words(s) {
    if (s.bad) { return "“" + s.bad.value + "” is not a whole number (" + s.bad.dataset.label + ")."; }
    var gap = s.total - s.sum;
    if (gap === 0) { return "The shares add up to " + s.total + "."; }
    return "The shares add up to " + s.sum + ", not " + s.total + ": " + (gap > 0 ? "add " : "take away ") +
      Math.abs(gap) + ".";
  }

  function render(list) {
    var q = list.closest("fieldset.dq");
    var said = q.querySelector("[data-sum-of]");
    var s = state(list);
    said.textContent = s.filled ? words(s) : "Nothing shared yet: " + s.total + " to share.";
    var alert = q.querySelector(".share-alert");   // a stopped submit's words: gone once the sum is right
    if (alert && (!s.filled || (!s.bad && s.sum === s.total))) {
      alert.remove();
      q.classList.remove("has-error");
    } else if (alert) {
      alert.textContent = words(s);
    }
  }

  lists.forEach(function (list) {
    var q = list.closest("fieldset.dq");
    list.addEventListener("input", function () { render(list); });
    q.addEventListener("dq-visibility", function (event) {
      if (!event.detail.visible) { state(list).boxes.forEach(function (b) { b.value = ""; }); }
      state(list).boxes.forEach(function (b) { b.disabled = !event.detail.visible; });
      render(list);
    });
    render(list);
  });

  document.addEventListener("submit", function (event) {
    if (event.target !== form) { return; }
    for (var i = 0; i < lists.length; i++) {
      var q = lists[i].closest("fieldset.dq");
      var s = state(lists[i]);
      if (q.hidden || !s.filled || (!s.bad && s.sum === s.total)) { continue; }   // nothing typed: the server asks
      event.preventDefault();
      event.stopImmediatePropagation();   // hit.js would mark the form as sent
      var alert = q.querySelector(".share-alert");
      if (!alert) {
        alert = document.createElement("p");
        alert.className = "error share-alert";
        alert.setAttribute("role", "alert");
        alert.id = "dq-" + q.dataset.question + "-alert";
        q.appendChild(alert);
      }
      alert.textContent = words(s);
      q.classList.add("has-error");
      (s.bad || s.boxes[0]).focus();
      return;
    }
  }, true);
})();
