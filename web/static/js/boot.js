// A classic script (not a module, old syntax only): it runs where a screen's modules do not, an old browser or a
// module that did not load over weak Wi-Fi, and says so. The screen had stayed on totals that looked live and never
// changed, its tabs and buttons dead, without a word. Each screen sets window.tablecallStarted once it is running.
(function () {
  setTimeout(function () {
    if (window.tablecallStarted) return;
    var box = document.createElement('p');
    box.id = 'boot-problem';
    box.className = 'problem card';
    box.setAttribute('role', 'alert');
    box.textContent = 'This screen did not start: reload the page. If it stays like this, this browser is too old '
      + 'for tablecall: it needs Chrome or Samsung Internet 73, Safari 12.2 (iOS 12.2) or Firefox 68, or newer.';
    var main = document.getElementById('main');
    main.insertBefore(box, main.firstChild);
  }, 8000);
})();
