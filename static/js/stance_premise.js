// Stance and premise per claim. A claim's stance and premise are shown only once it is marked relevant.
// Keyboard: the highlighted group (a "step") takes one key: relevance 1 / 0, then stance and premise
// 1 for, 2 against, 3 other / no argument; a claim marked not relevant skips its two label steps.
// Backspace goes back a step. Mouse and touch may answer in any order; the highlight follows.
// A stage project asks fewer steps: the stance stage relevance and stance, the premise stage only the
// premise (its claims are relevant already, so there is no relevance step).
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }
  var claims = Array.prototype.slice.call(form.querySelectorAll("fieldset.claim"));
  var current = 0;

  function relevance(claim) {
    var chosen = claim.querySelector('[data-step="relevant"] input:checked');
    return chosen ? chosen.value : "";
  }

  function steps() {  // the steps still to answer or answered, in order, given the relevance chosen so far
    var out = [];
    claims.forEach(function (claim) {
      var asksRelevance = claim.querySelector('[data-step="relevant"]');
      if (asksRelevance) { out.push(asksRelevance); }
      if (!asksRelevance || relevance(claim) !== "no") {
        Array.prototype.forEach.call(claim.querySelectorAll(".claim-labels .choices"), function (step) {
          out.push(step);
        });
      }
    });
    return out;
  }

  function answered(step) { return step.querySelector("input:checked") !== null; }

  function render() {
    claims.forEach(function (claim) {
      var asksRelevance = claim.querySelector('[data-step="relevant"]') !== null;
      claim.querySelector(".claim-labels").hidden = asksRelevance && relevance(claim) !== "yes";
      claim.classList.toggle("irrelevant", relevance(claim) === "no");
    });
    var all = steps();
    current = Math.max(0, Math.min(current, all.length - 1));
    all.forEach(function (step, i) { step.classList.toggle("active", i === current); });
    Array.prototype.forEach.call(form.querySelectorAll(".choices"), function (step) {
      if (all.indexOf(step) < 0) { step.classList.remove("active"); }
    });
  }

  function firstOpen() {
    var all = steps();
    for (var i = 0; i < all.length; i += 1) { if (!answered(all[i])) { return i; } }
    return all.length - 1;
  }

  function choose(step, key) {
    var inputs = Array.prototype.slice.call(step.querySelectorAll("input"));
    var input = step.dataset.step === "relevant"
      ? inputs.filter(function (i) { return i.value === (key === "1" ? "yes" : key === "0" ? "no" : ""); })[0]
      : inputs[Number(key) - 1];
    if (!input) { return false; }
    input.checked = true;
    return true;
  }

  form.addEventListener("change", function (event) {
    var step = event.target.closest(".choices");
    if (!step) { return; }
    render();
    current = firstOpen();
    render();
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var target = event.target;
    if (target && /^(TEXTAREA|SELECT)$/.test(target.tagName)) { return; }
    var all = steps();
    if (event.key === "Backspace") {
      event.preventDefault();
      current = Math.max(0, current - 1);
      render();
      return;
    }
    if (!/^[0-3]$/.test(event.key) || !all[current]) { return; }
    if (choose(all[current], event.key)) {
      event.preventDefault();
      current += 1;
      render();
      var step = steps()[current];
      if (step) { (step.querySelector("input:checked") || step.querySelector("input")).focus({ preventScroll: true }); step.scrollIntoView({ block: "nearest" }); }
    }
  });

  render();
  current = firstOpen();
  render();
})();
