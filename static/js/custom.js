// A declared campaign's HIT (templates/hits/custom.html): keys, the words of span questions and the
// questions shown only after a given answer (`when`).
// Keys: the highlighted question (the one holding the focus, else the first unanswered one) takes the digit
// shown beside an answer (its label's data-key: 1..9 in order, a 0..9 scale its own numbers); a choice, scale
// or A/B answer then moves on to the next question shown. In boxes a digit ticks or unticks, 0 is the "none"
// box; the boxes of a question are one Tab stop, Left / Right move between them and Space ticks. In a span
// question's words, Left / Right move and Space selects. Enter submits (hit.js; on a word too); Backspace goes
// back to the previous question shown. A question whose `when` is not met is hidden, its answer cleared and its
// inputs disabled (so nothing of it is sent); the server reads the answer the same way.
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }
  var questions = Array.prototype.slice.call(form.querySelectorAll("fieldset.dq"));
  var current = null;
  var spans = {};

  function kindOf(q) { return q.dataset.kind; }
  function inputs(q) { return Array.prototype.slice.call(q.querySelectorAll("input")); }
  function options(q) {  // the numbered answers: radios, or the boxes other than "none"
    return inputs(q).filter(function (i) {
      return (i.type === "radio" || i.type === "checkbox") && !i.closest(".none");
    });
  }
  function noneBox(q) { return q.querySelector(".none input"); }

  function values(q) {  // the question's answer as the `when` of a later question reads it
    return options(q).filter(function (i) { return i.checked; }).map(function (i) { return i.value; });
  }

  function answered(q) {
    var kind = kindOf(q);
    if (kind === "span") { return spans[q.dataset.question].selected.some(Boolean); }
    if (kind === "text") { return q.querySelector("input.dq-text").value.trim() !== ""; }
    if (kind === "ranking") {  // declared_ranking.js: every option has a rank
      return Array.prototype.every.call(q.querySelectorAll("select.rank-select"), function (s) { return s.value !== ""; });
    }
    if (kind === "best_worst") { return q.querySelectorAll('input[type="radio"]:checked').length === 2; }  // both picks
    if (kind === "distribution") {  // declared_distribution.js: some share typed
      return Array.prototype.some.call(q.querySelectorAll("input.share-input"), function (b) { return b.value.trim() !== ""; });
    }
    if (kind === "spans") { return !/^(\[\])?$/.test(q.querySelector('input[type="hidden"]').value); }  // declared_spans.js
    if (kind === "relations") { return !/^(\[\])?$/.test(q.querySelector('input[type="hidden"]').value); }  // declared_relations.js
    if (kind === "extractive") {  // a mark (declared_spans.js) or the unanswerable box (declared_extractive.js)
      return !/^(\[\])?$/.test(q.querySelector('input[type="hidden"]').value) || (noneBox(q) !== null && noneBox(q).checked);
    }
    return values(q).length > 0 || (noneBox(q) !== null && noneBox(q).checked);
  }

  // --- span questions: words are toggle buttons; the hidden field holds the JSON list of positions ----------
  function setupSpan(q) {
    var field = q.querySelector('input[type="hidden"]');
    var words = Array.prototype.slice.call(q.querySelectorAll("button.word"));
    var summary = q.querySelector("[data-selected-of]");
    var state = { field: field, words: words, selected: words.map(function () { return false; }), focused: 0 };
    try {  // after a refused submit the page comes back with the posted selection
      JSON.parse(field.value || "[]").forEach(function (n) { if (n >= 0 && n < words.length) { state.selected[n] = true; } });
    } catch (ignored) { /* start afresh */ }
    state.render = function () {
      words.forEach(function (w, i) { w.setAttribute("aria-pressed", state.selected[i] ? "true" : "false"); });
      var chosen = [];
      state.selected.forEach(function (s, i) { if (s) { chosen.push(i); } });
      if (!field.disabled) { field.value = JSON.stringify(chosen); }
      summary.textContent = chosen.length === 0 ? "No word selected." :
        "Selected: " + chosen.map(function (i) { return words[i].textContent; }).join(" ");
    };
    state.focus = function (i) {
      state.focused = Math.max(0, Math.min(words.length - 1, i));
      words.forEach(function (w, n) { w.tabIndex = n === state.focused ? 0 : -1; });
      if (words[state.focused]) { words[state.focused].focus(); }
    };
    words.forEach(function (w, i) {
      w.addEventListener("click", function () {
        state.selected[i] = !state.selected[i];
        state.focused = i;
        words.forEach(function (x, n) { x.tabIndex = n === i ? 0 : -1; });
        state.render();
      });
      w.addEventListener("keydown", function (event) {
        if (event.altKey || event.ctrlKey || event.metaKey) { return; }
        if (event.key === "ArrowRight" || event.key === "ArrowDown") { event.preventDefault(); state.focus(i + 1); }
        else if (event.key === "ArrowLeft" || event.key === "ArrowUp") { event.preventDefault(); state.focus(i - 1); }
        else if (event.key === "Home") { event.preventDefault(); state.focus(0); }
        else if (event.key === "End") { event.preventDefault(); state.focus(words.length - 1); }
        else if (event.key === "Enter") {  // Enter submits here too (a button would take it as a click)
          event.preventDefault();
          if (typeof form.requestSubmit === "function") { form.requestSubmit(document.getElementById("submit")); } else { form.submit(); }
        }
      });
    });
    state.clear = function () { state.selected = words.map(function () { return false; }); };
    spans[q.dataset.question] = state;
    if (window.declaredBoundaries && q.querySelector("[data-boundaries-of]")) { window.declaredBoundaries(q, state); }  // declared_boundaries.js
    state.render();
  }

  // --- boxes (several answers): one Tab stop for the group, as for radios; the arrows move between the boxes --
  // Every box a Tab stop made Tab visit each box before the next question, where the Keys list says Tab moves on.
  function setupBoxes(q) {
    var boxes = inputs(q).filter(function (i) { return i.type === "checkbox"; });
    function rove(n) { boxes.forEach(function (b, i) { b.tabIndex = i === n ? 0 : -1; }); }
    rove(Math.max(0, boxes.findIndex(function (b) { return b.checked; })));
    boxes.forEach(function (box, i) {
      box.addEventListener("focus", function () { rove(i); });
      box.addEventListener("keydown", function (event) {
        if (event.altKey || event.ctrlKey || event.metaKey) { return; }
        var step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
        if (event.key === "Home") { step = -i; } else if (event.key === "End") { step = boxes.length - 1 - i; }
        if (step === undefined) { return; }
        event.preventDefault();
        var n = Math.max(0, Math.min(boxes.length - 1, i + step));
        rove(n);
        boxes[n].focus();
      });
    });
  }

  // --- when: a question is shown only if each earlier question it names has one of the given answers -----
  function applyWhen() {
    var shown = {};
    questions.forEach(function (q) {
      var id = q.dataset.question;
      var visible = true;
      if (q.dataset.when) {
        var when = JSON.parse(q.dataset.when);
        Object.keys(when).forEach(function (parent) {
          var p = form.querySelector('fieldset.dq[data-question="' + parent + '"]');
          var given = p && shown[parent] ? values(p) : [];
          if (!given.some(function (v) { return when[parent].indexOf(v) >= 0; })) { visible = false; }
        });
      }
      shown[id] = visible;
      if (visible === !q.hidden) { return; }
      q.hidden = !visible;
      inputs(q).forEach(function (input) {
        if (!visible) {
          if (input.type === "radio" || input.type === "checkbox") { input.checked = false; }
          else { input.value = ""; }
        }
        input.disabled = !visible;
      });
      Array.prototype.forEach.call(q.querySelectorAll("button.word"), function (b) { b.disabled = !visible; });
      var span = spans[id];
      if (span) {
        span.clear();
        span.render();
        if (!visible) { span.field.value = ""; }
      }
      q.dispatchEvent(new CustomEvent("dq-visibility", { detail: { visible: visible } }));  // declared_spans.js
    });
  }

  // --- the highlighted question and its keys ------------------------------------------------------------
  function visibleQuestions() { return questions.filter(function (q) { return !q.hidden; }); }

  function highlight(q) {
    current = q;
    questions.forEach(function (x) { x.classList.toggle("active", x === q); });
  }

  function focusQuestion(q) {
    if (!q) { return; }
    highlight(q);
    var target;
    if (kindOf(q) === "span") {
      var span = spans[q.dataset.question];
      target = span.words[span.focused];
    } else if (kindOf(q) === "ranking") {  // declared_ranking.js: the first option's rank
      target = q.querySelector("select.rank-select");
    } else if (kindOf(q) === "relations") {  // declared_relations.js: the From select
      target = q.querySelector("select[data-relation-end]");
    } else if (kindOf(q) === "spans" || kindOf(q) === "extractive") {  // declared_spans.js: the word with the Tab stop
      target = q.querySelector('.spans-text [tabindex="0"]');
    } else {
      var all = inputs(q).filter(function (i) { return i.type !== "hidden"; });
      target = all.filter(function (i) { return i.checked; })[0] || all[0];
    }
    if (target) { target.focus({ preventScroll: true }); q.scrollIntoView({ block: "nearest" }); }
  }

  function next(q) {
    var shown = visibleQuestions();
    return shown[shown.indexOf(q) + 1] || null;
  }

  form.addEventListener("focusin", function (event) {
    var q = event.target.closest && event.target.closest("fieldset.dq");
    if (q) { highlight(q); }
  });

  function syncPicks() {  // best-worst questions: a member picked in one group cannot be picked in the other
    Array.prototype.forEach.call(form.querySelectorAll(".best-worst"), function (box) {
      var q = box.closest("fieldset.dq");
      var groups = Array.prototype.slice.call(box.querySelectorAll(".bw-group"));
      var picked = groups.map(function (g) { var c = g.querySelector("input:checked"); return c ? c.value : null; });
      groups.forEach(function (g, n) {
        var other = picked[1 - n];
        Array.prototype.forEach.call(g.querySelectorAll('input[type="radio"]'), function (input) {
          input.disabled = q.hidden || (other !== null && input.value === other);  // skipped by the arrows
        });
      });
      var said = q.querySelector("[data-picked-of]");
      if (said) {
        said.textContent = groups.map(function (g, n) {
          var c = g.querySelector("input:checked");
          return g.getAttribute("aria-label") + ": " + (c ? c.parentNode.textContent.trim() : "none yet");
        }).join("; ") + ".";
      }
    });
  }

  form.addEventListener("change", function (event) {
    if (event.target.closest(".none") && event.target.checked) {  // "none" unticks the options, and the reverse
      options(event.target.closest("fieldset.dq")).forEach(function (i) { i.checked = false; });
    } else if (event.target.type === "checkbox") {
      var box = noneBox(event.target.closest("fieldset.dq"));
      if (box && event.target.checked) { box.checked = false; }
    }
    applyWhen();
    syncPicks();
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !/^[0-9]$/.test(event.key)) { return; }
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
        (target.tagName === "INPUT" && !/^(radio|checkbox)$/.test(target.type)))) { return; }
    var q = current && !current.hidden ? current : visibleQuestions()[0];
    if (!q) { return; }
    var kind = kindOf(q);
    var label = q.querySelector('label.pill[data-key="' + event.key + '"]');
    var input = label ? label.querySelector("input") : null;
    if (!input || input.disabled) { return; }
    event.preventDefault();
    if (input.type === "checkbox") {
      input.checked = !input.checked;
    } else {
      input.checked = true;
    }
    input.dispatchEvent(new Event("change", { bubbles: true }));
    if (kind === "multi" || kind === "extractive") {  // a box: it keeps the focus (extractive: "unanswerable")
      input.focus({ preventScroll: true });
      highlight(q);
    } else {
      focusQuestion(next(q) || q);
    }
  });

  // Backspace goes back to the question shown before the highlighted one (a digit's answer moved on from it), to
  // change that answer by its key, as the built-in RuArg HIT's Backspace went back a step. In a text field, among a
  // span's words or marks, or on a rank, the key is theirs.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Backspace" || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) {
      return;
    }
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
        (target.tagName === "INPUT" && !/^(radio|checkbox)$/.test(target.type)))) { return; }
    var q = current && !current.hidden ? current : null;
    if (!q || /^(span|spans|ranking)$/.test(kindOf(q))) { return; }
    var shown = visibleQuestions();
    var previous = shown[shown.indexOf(q) - 1];
    if (!previous) { return; }
    event.preventDefault();
    focusQuestion(previous);
  });

  questions.forEach(function (q) {
    if (kindOf(q) === "span") { setupSpan(q); } else if (kindOf(q) === "multi") { setupBoxes(q); }
  });
  applyWhen();
  syncPicks();
  var firstOpen = visibleQuestions().filter(function (q) { return !answered(q); })[0] || visibleQuestions()[0];
  var withError = form.querySelector("fieldset.dq.has-error");
  highlight(withError || firstOpen);
  if (withError) { focusQuestion(withError); }
})();
