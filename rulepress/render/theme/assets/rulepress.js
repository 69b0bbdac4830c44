// mkdocs-material wraps each table in a box that scrolls sideways on a narrow screen: a keyboard must be able to
// reach it to scroll it (WCAG 2.1.1; axe-core's scrollable-region-focusable). Run on every page the theme shows.
document$.subscribe(function () {
  document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (box) {
    box.tabIndex = 0;
  });
});
