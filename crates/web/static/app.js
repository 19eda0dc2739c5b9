// Arbiter's pages work without this script; it adds copying tokens and confirming deletes.
"use strict";

document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  field.select();
  const done = () => { button.textContent = "Copied"; };
  if (navigator.clipboard) {
    navigator.clipboard.writeText(field.value).then(done, () => document.execCommand("copy") && done());
  } else if (document.execCommand("copy")) {
    done();
  }
});

document.addEventListener("submit", (event) => {
  const message = event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});
