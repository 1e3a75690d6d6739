// Opens lua-flame SVGs in headless Chromium and checks the interaction: hover details,
// click to zoom, search (button and Ctrl-F), the matched share, the URL, a reload from
// that URL, and that hostile frame names stay text. Prints "PASS: x" / "FAIL: x: why".
// usage: node check-svg.js MAIN.svg MAIN.folded HOSTILE.svg OUTDIR
"use strict";
const fs = require("fs");
const path = require("path");
const { check, frameBox, inertness, run } = require("./harness");

const [svgPath, foldedPath, hostilePath, outDir] = process.argv.slice(2);

// Share (percent) of samples whose stack has a frame matching RE: what "Matched" must say
// when nested matches count once.
function expectedShare(re) {
	let all = 0, hit = 0;
	for (const line of fs.readFileSync(foldedPath, "utf8").split("\n")) {
		const m = /^(.*)\s(\d+)$/.exec(line.trim());
		if (!m) continue;
		const n = Number(m[2]);
		all += n;
		if (m[1].split(";").some((f) => re.test(f))) hit += n;
	}
	return (100 * hit / all).toFixed(2) + "%";
}

async function mainView(browser) {
	const page = await browser.newPage();
	const url = "file://" + path.resolve(svgPath);
	await page.goto(url);
	await page.waitForSelector("svg[data-ready]", { timeout: 10000 });
	const root = await frameBox(page, "all");
	const target = "handle (app.lua:42)";
	let box = await frameBox(page, target);
	check("browser_frame_found", box !== null, "no frame named " + target);
	if (!box) return;

	await page.mouse.move(box.rect.x + box.rect.width / 2, box.rect.y + box.rect.height / 2);
	const details = await page.textContent("#details");
	check("browser_hover_details", details.includes(target) && /\d+ samples/.test(details) && /%/.test(details),
		"details line says '" + details + "'");

	const narrow = await frameBox(page, "format_number");
	await page.mouse.click(box.rect.x + box.rect.width / 2, box.rect.y + box.rect.height / 2);
	box = await frameBox(page, target);
	const wide = await frameBox(page, "format_number");
	check("browser_zoom_refits_text", narrow && wide && narrow.label.endsWith("..") && wide.label === "format_number",
		"label before zoom '" + (narrow && narrow.label) + "', after '" + (wide && wide.label) + "'");
	check("browser_zoom_fills_width", Math.abs(box.x - root.x) < 0.01 && Math.abs(box.w - root.w) < 0.01,
		"zoomed frame at x=" + box.x + " w=" + box.w + ", root x=" + root.x + " w=" + root.w);
	const parent = await frameBox(page, "ngx_http_lua_content_handler");
	check("browser_zoom_keeps_ancestors", parent && !parent.hidden && Math.abs(parent.w - root.w) < 0.01,
		"ancestor " + JSON.stringify(parent));
	const other = await frameBox(page, "epoll_wait");
	check("browser_zoom_hides_others", other && other.hidden, "unrelated frame " + JSON.stringify(other));
	const unzoomShown = await page.evaluate(() => !document.getElementById("unzoom").classList.contains("hide"));
	check("browser_reset_shown", unzoomShown, "Reset Zoom is hidden while zoomed");
	check("browser_url_zoom", /[#&]x=\d+/.test(page.url()), "url " + page.url());

	const term = "format|GC";
	page.once("dialog", (d) => d.accept(term));
	await page.keyboard.press("Control+f");
	await page.waitForFunction(() => /Matched/.test(document.getElementById("matched").textContent));
	const matched = await page.textContent("#matched");
	const want = "Matched: " + expectedShare(new RegExp(term));
	check("browser_search_matched", matched === want, "'" + matched + "', expected '" + want + "'");
	const highlighted = await page.evaluate(() => document.querySelectorAll("#frames g.m").length);
	check("browser_search_highlights", highlighted > 0, "no frame highlighted");
	check("browser_url_search", page.url().includes("s=" + encodeURIComponent(term)), "url " + page.url());
	fs.mkdirSync(outDir, { recursive: true });
	await page.screenshot({ path: path.join(outDir, "flame.png") });

	// the URL alone reproduces the view
	const link = page.url();
	const again = await browser.newPage();
	await again.goto(link);
	await again.waitForSelector("svg[data-ready]");
	const b2 = await frameBox(again, target);
	const m2 = await again.textContent("#matched");
	check("browser_url_restores", b2 && Math.abs(b2.w - root.w) < 0.01 && m2 === want,
		"after reload: frame " + JSON.stringify(b2) + ", matched '" + m2 + "'");

	// case toggle: upper-case term finds nothing until ic is on
	again.once("dialog", (d) => d.accept("HANDLE"));
	await again.click("#search");   // an active search is cleared by the first click
	await again.click("#search");
	const before = await again.textContent("#matched");
	await again.click("#ic");
	const after = await again.textContent("#matched");
	check("browser_case_toggle", before === "Matched: 0.00%" && after === "Matched: " +
		expectedShare(/HANDLE/i) && again.url().includes("ic=1"), "'" + before + "' then '" + after + "'");

	await again.click("#unzoom");
	const b3 = await frameBox(again, target);
	const r3 = await frameBox(again, "all");
	check("browser_reset_zoom", b3 && Math.abs(b3.w - box.w) > 1 && !/[#&]x=/.test(again.url()) &&
		Math.abs(r3.w - root.w) < 0.01, "after reset: " + JSON.stringify(b3) + " url " + again.url());
	await again.screenshot({ path: path.join(outDir, "flame-reset.png") });
}

async function hostileView(browser) {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + path.resolve(hostilePath));
	await page.waitForSelector("svg[data-ready]", { timeout: 10000 });
	const st = await inertness(page);
	check("browser_hostile_inert", !st.pwned && st.scripts === 1 && st.foreign === 0 && st.frames > 3,
		JSON.stringify(st));
	check("browser_hostile_no_errors", errors.length === 0, errors.join("; "));
	await page.screenshot({ path: path.join(outDir, "hostile.png") });
}

run("browser_", [mainView, hostileView]);
