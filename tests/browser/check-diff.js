// Opens differential flame graphs (lua-flame diff) in headless Chromium: hovering a
// frame shows BEFORE, AFTER, the change and the frame's kind; zoom and search work as in the normal
// graph; hostile frame names stay text. Prints "PASS: x" / "FAIL: x: why".
// usage: node check-diff.js PAIR.svg HOSTILE.svg OUTDIR (PAIR.svg from render_diff.sh)
"use strict";
const fs = require("fs");
const path = require("path");
const { check, frameBox, inertness, run } = require("./harness");

const [pairPath, hostilePath, outDir] = process.argv.slice(2);

async function hover(page, name) {
	const box = await frameBox(page, name);
	if (!box) return "no frame named " + name;
	await page.mouse.move(1, 1);   // a fresh mouseover, even on the frame hovered last
	await page.mouse.move(box.rect.x + box.rect.width / 2, box.rect.y + box.rect.height / 2);
	return page.textContent("#details");
}

async function pairView(browser) {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + path.resolve(pairPath));
	await page.waitForSelector("svg[data-ready]", { timeout: 10000 });
	const hot = await hover(page, "hot (a.lua:5)");
	const want = "hot (a.lua:5) (60 samples, 60.00%; before 10, 10.00%; change +50.00 pts, +50; Lua)";
	check("diff_hover_shows_change", hot === want, "'" + hot + "', expected '" + want + "'");
	const main = await hover(page, "main (a.lua:1)");
	check("diff_hover_unchanged", main === "main (a.lua:1) (100 samples, 100.00%; before 100, 100.00%; " +
		"change +0.00 pts, +0; Lua)", "'" + main + "'");
	const fresh = await hover(page, "string.rep");
	check("diff_hover_new", fresh === "string.rep (5 samples, 5.00%; before 0, 0.00%; change +5.00 pts, +5; new; C/native)",
		"'" + fresh + "'");

	const root = await frameBox(page, "all");
	let box = await frameBox(page, "hot (a.lua:5)");
	await page.mouse.click(box.rect.x + box.rect.width / 2, box.rect.y + box.rect.height / 2);
	box = await frameBox(page, "hot (a.lua:5)");
	const cold = await frameBox(page, "cold (a.lua:9)");
	check("diff_zoom_fills_width", Math.abs(box.x - root.x) < 0.01 && Math.abs(box.w - root.w) < 0.01 &&
		cold.hidden, "zoomed " + JSON.stringify(box) + ", sibling " + JSON.stringify(cold));
	const zoomed = await hover(page, "hot (a.lua:5)");
	check("diff_hover_zoomed", zoomed.includes("of zoomed; before 10, 10.00%; change +50.00 pts"), "'" + zoomed + "'");
	await page.click("#unzoom");

	page.once("dialog", (d) => d.accept("cold|string"));
	await page.keyboard.press("Control+f");
	await page.waitForFunction(() => /Matched/.test(document.getElementById("matched").textContent));
	const matched = await page.textContent("#matched");
	check("diff_search", matched === "Matched: 35.00%", "'" + matched + "', expected 'Matched: 35.00%'");
	check("diff_no_script_errors", errors.length === 0, errors.join("; "));
	fs.mkdirSync(outDir, { recursive: true });
	await page.screenshot({ path: path.join(outDir, "diff.png") });
}

async function hostileView(browser) {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + path.resolve(hostilePath));
	await page.waitForSelector("svg[data-ready]", { timeout: 10000 });
	const st = await inertness(page);
	check("diff_hostile_inert", !st.pwned && st.scripts === 1 && st.foreign === 0 && st.frames > 5,
		JSON.stringify(st));
	const d = await hover(page, "only after <&> ]]>");
	check("diff_hostile_hover", d.startsWith("only after <&> ]]> (3 samples") && d.endsWith("+3; new; C/native)"), "'" + d + "'");
	check("diff_hostile_no_errors", errors.length === 0, errors.join("; "));
}

run("diff_browser_", [pairView, hostileView]);
