// A declared HIT's relations questions (templates/hits/_declared_relations.html): typed, directed relations between
// the marks of an earlier spans question. The From and To selects list that question's current marks in words
// ("“Ada Lovelace” (Person)"), read from its "dq-marks" events (declared_spans.js sends one whenever its marks
// change, and keeps the last list as fieldset.dqMarks for a script loaded after it). "Add relation" adds the chosen
// relation, or says in the live line why it cannot (the same mark at both ends, a type that does not go between
// these labels, a relation already listed, too many); each relation is listed in words with a Remove button. A
// relation whose mark is removed (or relabelled, or moved) is dropped, and the live line says so. The hidden field
// holds the JSON list of {"from", "to", "label"}, each end a mark's "<start>:<end>:<label>", which the server
// checks against the same answer's marks (annotator/declared/relations.py).
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }

  function Relations(box) {
    var q = box.closest("fieldset.dq");
    var id = box.dataset.relationsOf;
    var source = form.querySelector('fieldset.dq[data-question="' + box.dataset.spans + '"]');
    var field = q.querySelector('input[type="hidden"][name="q_' + id + '"]');
    var from = box.querySelector('select[data-relation-end="from"]');
    var to = box.querySelector('select[data-relation-end="to"]');
    var type = box.querySelector("select[data-relation-type]");
    var add = box.querySelector("button[data-relation-add]");
    var said = q.querySelector("[data-relations-said]");
    var count = q.querySelector("[data-relations-count]");
    var list = q.querySelector("[data-relations-list]");
    var types = JSON.parse(box.dataset.types);
    var captions = JSON.parse(box.dataset.captions);
    var most = parseInt(box.dataset.max, 10);
    var marks = [];       // [{unit, text, label, caption}], in the text's order
    var relations = [];   // [{from, to, label}]

    function say(message) { said.textContent = message; }
    function mark(unit) { return marks.filter(function (m) { return m.unit === unit; })[0] || null; }
    function typeOf(value) { return types.filter(function (t) { return t.value === value; })[0] || null; }
    function named(m) {  // a mark in words; its offset too when another mark reads the same
      var twin = marks.some(function (o) { return o !== m && o.text === m.text && o.label === m.label; });
      return "\u201c" + m.text + "\u201d (" + m.caption + (twin ? ", at character " + m.unit.split(":")[0] : "") + ")";
    }
    function words(r) {
      var t = typeOf(r.label);
      return named(mark(r.from)) + " " + (t ? t.label : r.label) + " " + named(mark(r.to));
    }
    function ends(list) {
      return list.length ? list.map(function (l) { return captions[l] || l; }).join(" or ") : "any name";
    }

    function serialise() {
      field.value = JSON.stringify(relations.map(function (r) { return { from: r.from, to: r.to, label: r.label }; }));
    }

    function fill(select) {  // the marks as options, keeping the one chosen while it is still marked
      var chosen = select.value;
      select.textContent = "";
      if (!marks.length) {
        var none = document.createElement("option");
        none.value = "";
        none.textContent = "No name marked yet";
        select.appendChild(none);
      }
      marks.forEach(function (m) {
        var option = document.createElement("option");
        option.value = m.unit;
        option.textContent = named(m);
        select.appendChild(option);
      });
      if (mark(chosen)) { select.value = chosen; }
    }

    function render() {
      serialise();
      count.textContent = relations.length === 0 ? "Relations: none yet." :
        "Relations: " + relations.length + ".";
      list.textContent = "";
      relations.forEach(function (r, n) {
        var li = document.createElement("li");
        var what = document.createElement("span");
        what.className = "relation-text";
        what.textContent = words(r);
        var button = document.createElement("button");
        button.type = "button";
        button.className = "secondary relation-remove";
        button.textContent = "Remove";
        button.setAttribute("aria-label", "Remove " + words(r));
        button.addEventListener("click", function () {
          var gone = words(r);
          relations.splice(n, 1);
          render();
          say("Removed: " + gone + ".");
          var buttons = list.querySelectorAll("button");
          if (buttons.length) { buttons[Math.min(n, buttons.length - 1)].focus(); } else { from.focus(); }
        });
        li.appendChild(what);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(button);
        list.appendChild(li);
      });
    }

    function refusal(r) {  // why the relation cannot be added, or ""
      if (marks.length < 2) { return "Mark two names above first: a relation links two of them."; }
      var a = mark(r.from), b = mark(r.to), t = typeOf(r.label);
      if (!a || !b || !t) { return "Choose the name the relation starts from, its type and the name it goes to."; }
      if (a === b) { return "From and To are the same name: a relation links two different names."; }
      if (t.from.length && t.from.indexOf(a.label) < 0) {
        return "\u201c" + t.label + "\u201d goes from " + ends(t.from) + ", not from " + a.caption + " (\u201c" + a.text + "\u201d).";
      }
      if (t.to.length && t.to.indexOf(b.label) < 0) {
        return "\u201c" + t.label + "\u201d goes to " + ends(t.to) + ", not to " + b.caption + " (\u201c" + b.text + "\u201d).";
      }
      if (relations.some(function (o) { return o.from === r.from && o.to === r.to && o.label === r.label; })) {
        return "This relation is listed already.";
      }
      if (relations.length >= most) { return "At most " + most + " relations; remove one to add another."; }
      return "";
    }

    add.addEventListener("click", function () {
      var r = { from: from.value, to: to.value, label: type.value };
      var why = refusal(r);
      if (why) { say("Not added: " + why); return; }
      relations.push(r);
      render();
      say("Added: " + words(r) + ".");
    });

    function follow(found) {  // the spans question's marks changed: drop the relations whose marks are gone
      marks = found || [];
      var gone = relations.filter(function (r) { return !mark(r.from) || !mark(r.to); });
      relations = relations.filter(function (r) { return mark(r.from) && mark(r.to); });
      fill(from);
      fill(to);
      if (to.value === from.value && marks.length > 1) { to.value = marks[marks.indexOf(mark(from.value)) === 0 ? 1 : 0].unit; }
      render();
      if (gone.length) {
        say(gone.length === 1 ? "A relation was removed: one of its names is no longer marked." :
          gone.length + " relations were removed: their names are no longer marked.");
      }
    }

    if (source) {
      source.addEventListener("dq-marks", function (event) { follow(event.detail.marks); });
    }
    try {  // after a refused submit the page comes back with the posted relations
      JSON.parse(field.value || "[]").forEach(function (r) {
        if (r && typeof r.from === "string" && typeof r.to === "string" && typeOf(r.label)) {
          relations.push({ from: r.from, to: r.to, label: r.label });
        }
      });
    } catch (ignored) { /* start afresh */ }
    follow(source && source.dqMarks ? source.dqMarks : []);
    say("");
  }

  Array.prototype.forEach.call(form.querySelectorAll(".relations-pick"), Relations);
})();
