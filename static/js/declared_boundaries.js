// Span boundaries (annotator/declared/boundaries.py) for a declared span question with `boundaries: true`:
// the declared HIT's script keeps which words are selected; this keeps where one selected span ends and the next
// begins. The state is one flag per gap (`split[i]`: a cut before word i, meaningful only between two selected words); the
// hidden field holds the tags, one "B", "I" or "O" per word, which the server checks and stores. S or | on a
// word (or a click on the | before it) splits the span there or joins it again. Nothing selected is an answer, but
// one easily given by mistake: submitting with no word selected asks once (hit.js reads the form's data-confirm).
(function () {
  "use strict";
  var CONFIRM = "You selected no word. Submit that no word of this text should be selected?";
  window.declaredBoundaries = function (q, state) {
    var words = state.words;
    var gaps = [null].concat(Array.prototype.slice.call(q.querySelectorAll("button.gap")));
    var summary = q.querySelector("[data-boundaries-of]");
    var split = words.map(function () { return false; });
    var before = state.selected.slice();
    var group = q.querySelector(".words");
    var hint = q.querySelector('[id$="-split"]');
    if (group && hint) { group.setAttribute("aria-describedby", (group.getAttribute("aria-describedby") || "") + " " + hint.id); }

    function joinable(i) { return i > 0 && state.selected[i - 1] && state.selected[i]; }
    function tags() {
      return words.map(function (_, i) {
        if (!state.selected[i]) { return "O"; }
        return joinable(i) && !split[i] ? "I" : "B";
      });
    }

    try {  // after a refused submit the page comes back with the posted tags
      var given = JSON.parse(state.field.value || "[]");
      if (Array.isArray(given) && given.length === words.length && given.every(function (t) { return typeof t === "string"; })) {
        given.forEach(function (tag, i) {
          state.selected[i] = tag === "B" || tag === "I";
          split[i] = tag === "B" && i > 0 && given[i - 1] !== "O";
        });
        before = state.selected.slice();
      }
    } catch (ignored) { /* start afresh */ }

    var plain = state.render;
    state.render = function () {
      state.selected.forEach(function (s, i) {  // a word selected or deselected: the cuts beside it start afresh
        if (s !== before[i]) { split[i] = false; if (i + 1 < split.length) { split[i + 1] = false; } }
      });
      before = state.selected.slice();
      plain();
      var current = tags();
      if (!state.field.disabled) { state.field.value = JSON.stringify(current); }
      askIfEmpty(!state.field.disabled && current.every(function (t) { return t === "O"; }));
      words.forEach(function (w, i) {
        w.dataset.tag = current[i];
        w.classList.toggle("continues", current[i + 1] === "I");
        var gap = gaps[i];
        if (gap) {
          gap.disabled = !joinable(i);
          gap.classList.toggle("joinable", joinable(i));
          gap.setAttribute("aria-pressed", joinable(i) && split[i] ? "true" : "false");
        }
      });
      var found = [];
      current.forEach(function (tag, i) {
        if (tag === "B") { found.push([words[i].textContent]); }
        if (tag === "I") { found[found.length - 1].push(words[i].textContent); }
      });
      summary.textContent = found.length === 0 ? "No span yet." :
        found.length + (found.length === 1 ? " span: " : " spans: ") +
        found.map(function (s) { return "[" + s.join(" ") + "]"; }).join(" ");
    };
    function askIfEmpty(empty) {  // the form asks while any shown question of this kind has no word selected
      var form = q.closest("form");
      if (!form) { return; }
      var open = (form.dataset.emptySpans || "").split(" ").filter(function (id) { return id && id !== q.id; });
      if (empty) { open.push(q.id); }
      form.dataset.emptySpans = open.join(" ");
      if (open.length) { form.dataset.confirm = CONFIRM; } else { delete form.dataset.confirm; }
    }
    var clear = state.clear;
    state.clear = function () { clear(); split = words.map(function () { return false; }); };

    function cut(i) {
      if (!joinable(i)) { return false; }
      split[i] = !split[i];
      state.render();
      return true;
    }
    words.forEach(function (w, i) {
      w.addEventListener("keydown", function (event) {
        if (event.altKey || event.ctrlKey || event.metaKey) { return; }
        if (event.key === "s" || event.key === "S" || event.key === "|") {
          event.preventDefault();
          event.stopPropagation();  // not a digit nor a key of the page: the split is this question's
          if (!cut(i)) { summary.textContent = "A span can only be split between two selected words."; }
        }
      });
    });
    gaps.forEach(function (gap, i) {
      if (gap) { gap.addEventListener("click", function () { cut(i); state.focus(i); }); }
    });
  };
})();
