// The end of an MTurk study: post the assignment back to Mechanical Turk at once (the button stays for
// browsers without JavaScript). A static file because the CSP allows no inline script.
"use strict";
(function () {
  const form = document.getElementById("crowd-submit");
  if (form) form.submit();
})();
