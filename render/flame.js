// Interaction for lua-flame's flame graph (embedded into every SVG): hover details,
// click to zoom (ancestors stay, full width), regular-expression search with the matched
// share counted once per nested match, and the view kept in the URL (#x=&s=&ic=).
// A differential graph (lua-flame diff) also gives each frame's BEFORE count (data-b).
"use strict";
(function () {
	var NS = "http://www.w3.org/2000/svg";
	var svg = document.documentElement;
	var frames = [];           // pre-order: {g, rect, text, name, n, off, depth, parent, end}
	var total = 0, btotal = 0, fh = 16, fs = 12, fw = 0.59, pad = 10, pw = 0, countName = "samples";
	var zoomed = 0, query = "", ignoreCase = false;
	var el = function (id) { return document.getElementById(id); };

	function parseFrame(g) {
		var title = g.firstElementChild, rect = title.nextElementSibling;
		var t = title.textContent, nl = t.lastIndexOf("\n");
		return {
			g: g, rect: rect, text: rect.nextElementSibling,
			name: t.slice(0, nl), n: parseInt(t.slice(nl + 1).replace(/,/g, ""), 10) || 0,
			off: Number(g.getAttribute("data-o")) || 0, y: parseFloat(rect.getAttribute("y")),
			parent: -1, end: 0, depth: 0, match: false
		};
	}

	// Parents and subtree ends from the pre-order and each frame's depth.
	function link(y0, dir) {
		var stack = [];
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			f.depth = Math.round((f.y - y0) / (dir * fh));
			while (stack.length && frames[stack[stack.length - 1]].depth >= f.depth)
				frames[stack.pop()].end = i;
			f.parent = stack.length ? stack[stack.length - 1] : -1;
			stack.push(i);
		}
		while (stack.length) frames[stack.pop()].end = frames.length;
	}

	function load() {
		var box = el("frames");
		countName = svg.getAttribute("data-count") || "samples";
		if (!box) return;
		fh = Number(box.getAttribute("data-fh")) || fh;
		fs = Number(box.getAttribute("data-fs")) || fs;
		fw = Number(box.getAttribute("data-fw")) || fw;
		total = Number(box.getAttribute("data-total")) || 0;
		btotal = Number(box.getAttribute("data-btotal")) || 0;
		for (var g = box.firstElementChild; g; g = g.nextElementSibling) frames.push(parseFrame(g));
		if (!frames.length) return;
		pad = parseFloat(frames[0].rect.getAttribute("x"));
		pw = parseFloat(frames[0].rect.getAttribute("width"));
		link(Number(box.getAttribute("data-y0")), Number(box.getAttribute("data-dir")));
	}

	// flamegraph.pl's rule: at least three characters, else nothing; cut with "..".
	function fitted(name, w) {
		var fit = Math.floor((w - 6) / (fs * fw));
		if (fit < 3) return "";
		var chars = Array.from(name);
		return chars.length <= fit ? name : chars.slice(0, fit - 2).join("") + "..";
	}

	function place(f, x, w) {
		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", w.toFixed(2));
		var s = fitted(f.name, w);
		if (!f.text && !s) return;
		if (!f.text) {
			f.text = document.createElementNS(NS, "text");
			f.text.setAttribute("y", (f.y + fh - 4.5).toFixed(0));
			f.g.appendChild(f.text);
		}
		f.text.setAttribute("x", (x + 3).toFixed(2));
		f.text.textContent = s;
	}

	function zoom(i) {
		if (!(i >= 0 && i < frames.length)) i = 0;
		var z = frames[i], k = pw / (z.n || 1);
		for (var j = 0; j < frames.length; j++) {
			var f = frames[j], inside = j >= i && j < z.end;
			f.g.classList.toggle("hide", !inside);
			f.g.classList.remove("anc");
			if (inside) place(f, pad + (f.off - z.off) * k, f.n * k);
		}
		for (var a = z.parent; a >= 0; a = frames[a].parent) {
			frames[a].g.classList.remove("hide");
			frames[a].g.classList.add("anc");
			place(frames[a], pad, pw);
		}
		zoomed = i;
		el("unzoom").classList.toggle("hide", i === 0);
	}

	function pct(n, of) { return (of ? 100 * n / of : 0).toFixed(2) + "%"; }

	function signed(v, digits) { return (v >= 0 ? "+" : "") + v.toFixed(digits); }

	// BEFORE and the change of a differential graph's frame: shares and counts.
	function change(f) {
		var b = Number(f.g.getAttribute("data-b")) || 0;
		var pts = (total ? 100 * f.n / total : 0) - (btotal ? 100 * b / btotal : 0);
		var s = "; before " + b.toLocaleString("en-US") + ", " + pct(b, btotal) + "; change " +
			signed(pts, 2) + " pts, " + signed(f.n - b, 0);
		if (f.g.classList.contains("new")) s += "; new";
		var kind = f.g.getAttribute("data-k");
		return kind && kind !== "all" ? s + "; " + kind : s;
	}

	function describe(f) {
		var s = f.name + " (" + f.n.toLocaleString("en-US") + " " + countName + ", " + pct(f.n, total);
		if (zoomed > 0) s += " of all, " + pct(f.n, frames[zoomed].n) + " of zoomed";
		if (f.g.hasAttribute("data-b")) s += change(f);
		return s + ")";
	}

	// Matched share: a match inside another match is not counted again.
	function search(term) {
		var re = null, sum = 0, shown = el("matched");
		query = term || "";
		if (query) {
			try { re = new RegExp(query, ignoreCase ? "i" : ""); }
			catch (e) { shown.textContent = "Invalid regular expression"; re = null; }
		}
		var covered = [];
		for (var j = 0; j < frames.length; j++) {
			var f = frames[j], p = f.parent;
			f.match = re !== null && re.test(f.name);
			f.g.classList.toggle("m", f.match);
			covered[j] = p >= 0 && (covered[p] || frames[p].match);
			if (f.match && !covered[j]) sum += f.n;
		}
		if (re) shown.textContent = "Matched: " + pct(sum, total);
		else if (!query) shown.textContent = " ";
		el("search").classList.toggle("on", !!query);
	}

	function readState() {
		var st = {}, parts = (location.search.slice(1) + "&" + location.hash.slice(1)).split("&");
		for (var i = 0; i < parts.length; i++) {
			var eq = parts[i].indexOf("=");
			if (eq <= 0) continue;
			try { st[parts[i].slice(0, eq)] = decodeURIComponent(parts[i].slice(eq + 1)); } catch (e) { }
		}
		return st;
	}

	function writeState() {
		var p = [];
		if (zoomed > 0) p.push("x=" + zoomed);
		if (query) p.push("s=" + encodeURIComponent(query));
		if (ignoreCase) p.push("ic=1");
		var url = location.href.replace(/#.*$/, "") + (p.length ? "#" + p.join("&") : "");
		try { history.replaceState(null, "", url); }
		catch (e) { location.hash = p.join("&"); }
	}

	function apply(st) {
		ignoreCase = st.ic === "1";
		el("ic").classList.toggle("on", ignoreCase);
		var x = parseInt(st.x, 10) || 0;
		if (x !== zoomed) zoom(x);
		search(st.s || "");
	}

	function ask() {
		var term = prompt("Search frames (regular expression):", query);
		if (term === null) return;
		search(term);
		writeState();
	}

	function wire() {
		var box = el("frames"), details = el("details");
		var index = new Map();
		frames.forEach(function (f, i) { index.set(f.g, i); });
		var hit = function (e) {
			var n = e.target;
			while (n && n !== box && !index.has(n)) n = n.parentNode;
			return n && index.has(n) ? index.get(n) : -1;
		};
		if (box) {
			box.addEventListener("mouseover", function (e) {
				var i = hit(e);
				if (i >= 0) details.textContent = describe(frames[i]);
			});
			box.addEventListener("mouseout", function () { details.textContent = " "; });
			box.addEventListener("click", function (e) {
				var i = hit(e);
				if (i < 0) return;
				zoom(i);
				writeState();
			});
		}
		el("unzoom").addEventListener("click", function () { zoom(0); writeState(); });
		el("search").addEventListener("click", function () {
			if (query) { search(""); writeState(); } else ask();
		});
		el("ic").addEventListener("click", function () {
			ignoreCase = !ignoreCase;
			el("ic").classList.toggle("on", ignoreCase);
			search(query);
			writeState();
		});
		window.addEventListener("keydown", function (e) {
			if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) { e.preventDefault(); ask(); }
			else if (e.key === "Escape" && query) { search(""); writeState(); }
		});
		window.addEventListener("hashchange", function () { apply(readState()); });
	}

	function init() {
		load();
		wire();
		apply(readState());
		svg.setAttribute("data-ready", "1");
	}
	if (document.readyState === "loading") window.addEventListener("load", init);
	else init();
})();
