// The lesson page: chapter links seek the whole-lesson video; the chapter playing is highlighted.
"use strict";

// Servers without byte ranges (python -m http.server) cannot seek a video: play a local copy instead.
async function seekLocalCopy(video, time) {
  const copy = await (await fetch(video.currentSrc)).blob();
  video.addEventListener("loadedmetadata", () => { video.currentTime = time; }, { once: true });
  video.src = URL.createObjectURL(copy);
}

// A chapter link seeks by setting data-target; a seek that lands elsewhere falls back to a local copy.
function followSeeks(video) {
  video.addEventListener("seeked", () => {
    const target = Number(video.dataset.target);
    if (video.dataset.target === undefined) return;
    delete video.dataset.target;
    if (Math.abs(video.currentTime - target) > 0.5 && video.currentSrc.startsWith("http")) seekLocalCopy(video, target);
  });
}

function seek(video, time) {
  video.dataset.target = time;
  video.currentTime = time;
}

document.addEventListener("DOMContentLoaded", () => {
  const lesson = document.getElementById("lesson");
  if (!lesson) return;
  const links = [...document.querySelectorAll("a.seek")];
  followSeeks(lesson);

  for (const link of links) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      seek(lesson, Number(link.dataset.start));
      lesson.scrollIntoView({ behavior: "smooth", block: "nearest" });
    });
  }

  lesson.addEventListener("timeupdate", () => {
    const playing = links.filter((link) => Number(link.dataset.start) <= lesson.currentTime + 0.01).pop();
    for (const link of links) link.classList.toggle("current", link === playing);
  });
});
