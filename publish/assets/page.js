// The lesson page: chapter links seek the whole-lesson video; the chapter playing is highlighted.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const lesson = document.getElementById("lesson");
  if (!lesson) return;
  const links = [...document.querySelectorAll("a.seek")];

  for (const link of links) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      lesson.currentTime = Number(link.dataset.start);
      lesson.scrollIntoView({ behavior: "smooth", block: "nearest" });
    });
  }

  lesson.addEventListener("timeupdate", () => {
    const playing = links.filter((link) => Number(link.dataset.start) <= lesson.currentTime + 0.01).pop();
    for (const link of links) link.classList.toggle("current", link === playing);
  });
});
