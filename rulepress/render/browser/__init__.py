"""What a site page runs in the browser, under Pyodide: the referee (``referee.py``).  rulepress/render/in_browser.py
packs it with the engine and the parts of rulepress they import."""
