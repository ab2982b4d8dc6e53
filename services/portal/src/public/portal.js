// The portal's only script, and an optional one: every page works without it. It adds a copy
// button's behaviour and a confirmation before rotating or revoking a key.

function copyTarget(button) {
  const target = document.getElementById(button.dataset.copy);
  if (!target) return "";
  return "value" in target && typeof target.value === "string" ? target.value : target.textContent;
}

function announce(button, text) {
  const status = document.getElementById(button.dataset.copyStatus);
  if (status) status.textContent = text;
}

function selectTarget(button) {
  const target = document.getElementById(button.dataset.copy);
  if (target && "select" in target) {
    target.focus();
    target.select();
  }
}

document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  if (!button) return;
  try {
    await navigator.clipboard.writeText(copyTarget(button));
    button.textContent = "Copied";
    announce(button, "Copied to the clipboard.");
    setTimeout(() => {
      button.textContent = "Copy";
    }, 4000);
  } catch {
    // No clipboard access (an old browser, or a page not served over https): select it instead.
    selectTarget(button);
    announce(button, "Your browser did not let us copy: the text is selected, press Ctrl+C (⌘C on a Mac).");
  }
});

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});
