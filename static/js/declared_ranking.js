// A declared campaign's ranking questions (templates/hits/_declared_ranking.html, annotator/declared/ranking.py):
// one select of the ranks per option. Choosing a rank another option holds gives that option the rank the
// chosen one had (a swap), so no rank is ever held twice; Up / Down on a select therefore move its option one
// place at a time. The order so far is said below the list (a polite live region). A question hidden by its
// `when` (the "dq-visibility" event of the HIT's script) has its ranks cleared and its selects disabled, so
// nothing of it is sent.
(function () {
  "use strict";

  function setup(list) {
    var q = list.closest("fieldset.dq");
    var selects = Array.prototype.slice.call(list.querySelectorAll("select.rank-select"));
    var said = q.querySelector("[data-ranked-of]");
    selects.forEach(function (s) { s.dataset.prev = s.value; });

    function render(note) {
      var ranked = selects.filter(function (s) { return s.value !== ""; });
      var text;
      if (ranked.length === selects.length) {
        ranked.sort(function (a, b) { return Number(a.value) - Number(b.value); });
        text = "Your order: " + ranked.map(function (s) { return s.dataset.label; }).join(" > ") + ".";
      } else {
        var left = selects.length - ranked.length;
        text = left + (left === 1 ? " option" : " options") + " still to rank.";
      }
      said.textContent = note ? note + " " + text : text;
    }

    selects.forEach(function (s) {
      s.addEventListener("change", function () {
        var note = "";
        if (s.value !== "") {
          selects.forEach(function (other) {
            if (other !== s && other.value === s.value) {  // the rank is taken: the holder gets s's old rank
              other.value = s.dataset.prev;
              other.dataset.prev = other.value;
              note = other.dataset.label + (other.value ? " is now " + other.value + "." : " has no rank now.");
            }
          });
        }
        s.dataset.prev = s.value;
        render(note);
      });
    });

    q.addEventListener("dq-visibility", function (event) {
      var visible = event.detail.visible;
      selects.forEach(function (s) {
        if (!visible) { s.value = ""; s.dataset.prev = ""; }
        s.disabled = !visible;
      });
      render("");
    });
    render("");
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-ranking-of]"), setup);
})();
