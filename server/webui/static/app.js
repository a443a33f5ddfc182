// contextd web page: confirmations, drag-and-drop upload with per-file
// progress, and document status polling. Loaded from 'self' only (the
// Content-Security-Policy allows no inline script).
"use strict";

(function () {
  const main = document.getElementById("main");
  const csrf = main ? main.dataset.csrf : "";

  // Forms with data-confirm ask before they submit.
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (ev) {
      if (!window.confirm(f.dataset.confirm)) ev.preventDefault();
    });
  });

  const files = document.getElementById("files");
  let timer = null;

  function statusCell(tr, f) {
    const td = tr.querySelector(".status");
    td.textContent = f.status;
    td.className = "status status-" + f.status;
    td.title = f.error || "";
  }

  function addRow(f) {
    const tbody = files.querySelector("tbody");
    const tr = document.createElement("tr");
    tr.dataset.id = f.id;
    const name = document.createElement("td");
    const a = document.createElement("a");
    a.href = window.location.pathname.replace(/\/$/, "") + "/doc/" + encodeURIComponent(f.id);
    a.textContent = f.name;
    name.appendChild(a);
    const st = document.createElement("td");
    st.className = "status";
    const size = document.createElement("td");
    size.className = "opt";
    size.textContent = f.size + " B";
    const added = document.createElement("td");
    added.className = "opt";
    tr.append(name, st, size, added, document.createElement("td"));
    tbody.prepend(tr);
    const none = document.getElementById("no-files");
    if (none) none.remove();
    return tr;
  }

  // poll asks for the folder's documents until none is Pending or Processing.
  function poll() {
    if (!files || timer) return;
    timer = window.setInterval(function () {
      fetch(files.dataset.poll, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (j) {
          if (!j.files) return;
          let busy = false;
          j.files.forEach(function (f) {
            let tr = files.querySelector('tr[data-id="' + CSS.escape(f.id) + '"]');
            if (!tr) tr = addRow(f);
            statusCell(tr, f);
            if (f.status !== "Ready" && f.status !== "Failed") busy = true;
          });
          files.dataset.pending = busy ? "1" : "";
          if (!busy) { window.clearInterval(timer); timer = null; }
        })
        .catch(function () { /* keep polling: the next tick retries */ });
    }, 1000);
  }
  if (files && files.dataset.pending) poll();

  const drop = document.getElementById("drop");
  const input = document.getElementById("file-input");
  const list = document.getElementById("uploads");
  if (!drop) return;

  // upload sends one file as the request body, with its own progress bar.
  function upload(file) {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = file.name + " ";
    const bar = document.createElement("progress");
    bar.max = 100; bar.value = 0;
    bar.setAttribute("aria-label", "upload of " + file.name);
    const msg = document.createElement("span");
    msg.className = "upload-status";
    msg.textContent = " uploading";
    li.append(label, bar, msg);
    list.appendChild(li);
    const url = drop.dataset.upload + "?name=" + encodeURIComponent(file.name) + "&path=" + encodeURIComponent(drop.dataset.path || "");
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("X-CSRF-Token", csrf);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = function (e) {
      if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
    };
    xhr.onload = function () {
      let j = {};
      try { j = JSON.parse(xhr.responseText); } catch (e) { j = { error: "unexpected answer" }; }
      if (xhr.status === 200) {
        bar.value = 100;
        msg.textContent = " accepted, ingesting";
        li.className = "upload-ok";
        poll();
      } else {
        msg.textContent = " refused: " + (j.error || xhr.status);
        li.className = "upload-failed";
      }
    };
    xhr.onerror = function () { msg.textContent = " failed: connection error"; li.className = "upload-failed"; };
    xhr.send(file);
  }

  function take(fl) { Array.prototype.forEach.call(fl, upload); }
  drop.addEventListener("dragover", function (e) { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", function () { drop.classList.remove("over"); });
  drop.addEventListener("drop", function (e) {
    e.preventDefault(); drop.classList.remove("over");
    take(e.dataTransfer.files);
  });
  drop.addEventListener("keydown", function (e) {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); }
  });
  input.addEventListener("change", function () { take(input.files); input.value = ""; });
})();
