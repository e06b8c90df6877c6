// Keep every number in scientific notation on one line: the chapters print "8.54 × 10²" (pdp_lib.formatting.sci)
// with ordinary spaces, and a browser may otherwise break the line between a mantissa and its power of ten.
// Each such number, in the article's text and tables, is wrapped in <span class="pdp-number"> (custom.css:
// white-space: nowrap); tools/check_site.py counts any that still spans two lines.
document.addEventListener("DOMContentLoaded", function () {
  var number = /[−-]?\d+(?:\.\d+)? × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+/g;
  var root = document.querySelector("article") || document.body;
  var found = [];
  var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, null);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    number.lastIndex = 0;
    if (!node.parentElement.closest("script, style, pre, code, mjx-container, .pdp-number")
        && number.test(node.nodeValue)) found.push(node);
  }
  found.forEach(function (node) {
    var text = node.nodeValue, parts = document.createDocumentFragment(), at = 0, m;
    number.lastIndex = 0;
    while ((m = number.exec(text)) !== null) {
      parts.appendChild(document.createTextNode(text.slice(at, m.index)));
      var span = document.createElement("span");
      span.className = "pdp-number";
      span.textContent = m[0];
      parts.appendChild(span);
      at = m.index + m[0].length;
    }
    parts.appendChild(document.createTextNode(text.slice(at)));
    node.parentNode.replaceChild(parts, node);
  });
});
