// What the browser checks share: PASS/FAIL lines, finding a frame of a lua-flame SVG by its
// name, whether a page stayed inert, and one headless Chromium session run over a list of views.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

let failed = 0;
function check(name, ok, why) {
	if (ok) console.log("PASS: " + name);
	else { failed++; console.log("FAIL: " + name + ": " + why); }
}

// The frame named name (the first line of its tooltip title): its place, its label, whether it
// is hidden, and its box on screen; null when there is none.
async function frameBox(page, name) {
	return page.evaluate((name) => {
		for (const g of document.querySelectorAll("#frames > g")) {
			const t = g.querySelector("title").textContent;
			if (t.slice(0, t.indexOf("\n")) !== name) continue;
			const r = g.querySelector("rect");
			const text = g.querySelector("text");
			return { x: +r.getAttribute("x"), w: +r.getAttribute("width"), label: text ? text.textContent : "",
				hidden: g.classList.contains("hide"), rect: r.getBoundingClientRect().toJSON() };
		}
		return null;
	}, name);
}

// What hostile frame names could have smuggled in: a script that ran, extra scripts, elements
// that are not drawing.
async function inertness(page) {
	return page.evaluate(() => ({
		pwned: typeof window.__pwned !== "undefined",
		scripts: document.getElementsByTagName("script").length,
		foreign: document.querySelectorAll("#frames img, #frames script, #frames foreignObject").length,
		frames: document.querySelectorAll("#frames > g").length,
	}));
}

// Runs each view (async function of the browser) in one fresh headless Chromium, then exits
// 0 when every check passed.
async function run(prefix, views) {
	const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "lua-flame-chromium-"));
	// a persistent context is how Playwright takes a (fresh) --user-data-dir
	const browser = await chromium.launchPersistentContext(userDir, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		viewport: { width: 1300, height: 700 },
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync"],
	});
	try {
		for (const view of views) await view(browser);
	} catch (e) {
		failed++;
		console.log("FAIL: " + prefix + "session: " + String(e).split("\n")[0]);
	} finally {
		await browser.close();
		fs.rmSync(userDir, { recursive: true, force: true });
	}
	process.exit(failed ? 1 : 0);
}

module.exports = { check, frameBox, inertness, run };
