// Emphasis selection: words toggle, neighbouring selected words form one span (B then I...), and the
// gap between two selected words cuts or rejoins the span. The state is two arrays, `selected` per word
// and `split` per gap (a cut before word i); the tags and every visual follow from them, and the hidden
// `tags` field always holds their JSON, which is what the server checks and stores.
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  var field = document.getElementById("tags");
  var container = document.getElementById("words");
  if (!form || !field || !container) { return; }
  var submit = document.getElementById("submit");
  var words = Array.prototype.slice.call(container.querySelectorAll("button.word"));
  var gaps = [null].concat(Array.prototype.slice.call(container.querySelectorAll("button.gap")));
  var summary = document.getElementById("spans");
  var CONFIRM = "You selected no word. Submit that nothing in this text should be emphasised?";
  var selected = words.map(function () { return false; });
  var split = words.map(function () { return false; });
  var focused = 0;

  function joinable(i) { return i > 0 && selected[i - 1] && selected[i]; }

  function tags() {
    return words.map(function (_, i) {
      if (!selected[i]) { return "O"; }
      return joinable(i) && !split[i] ? "I" : "B";
    });
  }

  function spans(current) {
    var out = [];
    current.forEach(function (tag, i) {
      if (tag === "B") { out.push([words[i].textContent]); }
      if (tag === "I") { out[out.length - 1].push(words[i].textContent); }
    });
    return out;
  }

  function render() {
    var current = tags();
    words.forEach(function (word, i) {
      word.setAttribute("aria-pressed", selected[i] ? "true" : "false");
      word.dataset.tag = current[i];
      word.classList.toggle("continues", current[i + 1] === "I");
      var gap = gaps[i];
      if (gap) {
        gap.disabled = !joinable(i);
        gap.classList.toggle("joinable", joinable(i));
        gap.setAttribute("aria-pressed", joinable(i) && split[i] ? "true" : "false");
      }
    });
    field.value = JSON.stringify(current);
    var found = spans(current);
    summary.textContent = found.length === 0 ? "Nothing selected yet." :
      found.length + (found.length === 1 ? " span: " : " spans: ") +
      found.map(function (s) { return "[" + s.join(" ") + "]"; }).join(" ");
    if (found.length === 0) { form.dataset.confirm = CONFIRM; } else { delete form.dataset.confirm; }
  }

  function toggle(i) {
    selected[i] = !selected[i];
    split[i] = false;  // a cut only means something between two selected words: start afresh
    if (i + 1 < split.length) { split[i + 1] = false; }
    render();
  }

  function cut(i) {
    if (!joinable(i)) { return false; }
    split[i] = !split[i];
    render();
    return true;
  }

  function focus(i) {
    focused = Math.max(0, Math.min(words.length - 1, i));
    words.forEach(function (word, n) { word.tabIndex = n === focused ? 0 : -1; });
    words[focused].focus();
  }

  function restore() {  // after a refused submit the page comes back with the posted tags
    var given;
    try { given = JSON.parse(field.value || "[]"); } catch (e) { given = []; }
    if (!Array.isArray(given) || given.length !== words.length) { return; }
    given.forEach(function (tag, i) {
      selected[i] = tag === "B" || tag === "I";
      split[i] = tag === "B" && i > 0 && (given[i - 1] === "B" || given[i - 1] === "I");
    });
  }

  words.forEach(function (word, i) {
    word.addEventListener("click", function () { focused = i; toggle(i); focus(i); });
  });
  gaps.forEach(function (gap, i) {
    if (gap) { gap.addEventListener("click", function () { cut(i); focus(i); }); }
  });

  container.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var i = words.indexOf(event.target);
    if (i < 0) { return; }
    var moves = { ArrowLeft: i - 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowDown: i + 1,
                  Home: 0, End: words.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      focus(moves[event.key]);
    } else if (event.key === "Enter") {
      // A focused button would take Enter as a click; on this page Enter submits, as on every HIT.
      event.preventDefault();
      if (typeof form.requestSubmit === "function") { form.requestSubmit(submit); } else { form.submit(); }
    } else if (event.key === "s" || event.key === "S" || event.key === "|") {
      event.preventDefault();
      if (!cut(i)) { summary.textContent = "A span can only be split between two selected words."; }
    }
  });

  // Arrows anywhere else on the page bring the keyboard back to the words.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (container.contains(target) || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) { return; }
    if (target && /^(INPUT|TEXTAREA|SELECT|BUTTON|A|SUMMARY)$/.test(target.tagName)) { return; }
    event.preventDefault();
    focus(focused);
  });

  restore();
  render();
  focus(0);
})();
