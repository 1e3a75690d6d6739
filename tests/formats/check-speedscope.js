// Checks a lua-flame speedscope file with speedscope's own code: the JSON schema shipped
// in the speedscope npm package (validated with ajv), then the importer itself: speedscope's
// app, served locally, loads the file in headless Chromium (Debian's /usr/bin/chromium);
// its sandwich view then lists each function's self share. Prints "PASS: x" / "FAIL: x: why".
// usage: node check-speedscope.js NAME FILE.speedscope.json [FUNCTION=SELF%]...
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");

const [name, file, ...expect] = process.argv.slice(2);
const release = path.join(__dirname, "node_modules/speedscope/dist/release");
let failed = 0;
function check(what, ok, why) {
	if (ok) console.log(`PASS: ${name}_${what}`);
	else { failed++; console.log(`FAIL: ${name}_${what}: ${why}`); }
}

function checkSchema(doc) {
	const Ajv = require("ajv");
	const schema = JSON.parse(fs.readFileSync(path.join(release, "file-format-schema.json"), "utf8"));
	const validate = new Ajv({ strict: false }).compile(schema);
	check("schema", validate(doc), JSON.stringify(validate.errors).slice(0, 300));
	// What the schema cannot say but the importer relies on.
	const frames = doc.shared.frames.length;
	let ok = true, why = "";
	for (const p of doc.profiles) {
		const sum = p.weights.reduce((a, b) => a + b, 0);
		if (p.samples.length !== p.weights.length) { ok = false; why = "samples and weights differ in length"; }
		if (sum !== p.endValue - p.startValue) { ok = false; why = `weights sum ${sum}, endValue ${p.endValue}`; }
		for (const s of p.samples)
			if (s.some((i) => !Number.isInteger(i) || i < 0 || i >= frames)) { ok = false; why = "frame index out of range"; }
	}
	check("consistent", ok, why);
}

function serve(profile) {
	const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
	const server = http.createServer((req, res) => {
		const p = new URL(req.url, "http://localhost").pathname;
		const f = p === "/profile.json" ? profile : path.join(release, path.basename(p));
		fs.readFile(f, (err, data) => {
			if (err) { res.writeHead(404); res.end(); return; }
			res.writeHead(200, { "content-type": types[path.extname(f)] || "application/octet-stream" });
			res.end(data);
		});
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// Self share per function name from the sandwich view's table, as speedscope computed it.
async function sandwichShares(page) {
	return page.evaluate(() => {
		const out = {};
		for (const row of document.querySelectorAll("tr")) {
			const cells = [...row.querySelectorAll("td")].map((td) => td.textContent.trim());
			if (cells.length >= 3) out[cells[cells.length - 1]] = cells.map((c) => (/([\d.]+)%/.exec(c) || [])[1]);
		}
		return out;
	});
}

async function checkImport(doc) {
	if (!fs.existsSync("/usr/bin/chromium")) { check("import", false, "no /usr/bin/chromium"); return; }
	const { chromium } = require("playwright-core");
	const server = await serve(path.resolve(file));
	const base = `http://127.0.0.1:${server.address().port}`;
	const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
		args: ["--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox"] });
	try {
		const page = await browser.newPage();
		const log = [];
		page.on("console", (m) => log.push(m.text()));
		page.on("dialog", (d) => { log.push("dialog: " + d.message()); d.dismiss(); });
		await page.goto(`${base}/index.html#view=sandwich&profileURL=${encodeURIComponent(base + "/profile.json")}`);
		const want = `${doc.name} - speedscope`;
		const loaded = await page.waitForFunction((t) => document.title === t, want, { timeout: 20000 })
			.then(() => true, () => false);
		check("import", loaded && log.some((l) => l.includes("Importing as speedscope json file")) &&
			!log.some((l) => /Failed to load|Unrecognized|dialog:/.test(l)),
			`title '${await page.title()}', log: ${log.join(" | ").slice(0, 400)}`);
		if (!loaded || !expect.length) return;
		await page.waitForSelector("tr td", { timeout: 10000 }).catch(() => {});
		const shares = await sandwichShares(page);
		for (const e of expect) {
			const [fn, self] = e.split("=");
			const got = shares[fn];
			check(`self_${fn}`, got && Math.abs(parseFloat(got[1]) - parseFloat(self)) < 0.01,
				`sandwich row for ${fn}: ${JSON.stringify(got)}; rows: ${Object.keys(shares).join(", ").slice(0, 300)}`);
		}
	} finally {
		await browser.close();
		server.close();
	}
}

(async () => {
	let doc;
	try {
		doc = JSON.parse(fs.readFileSync(file, "utf8"));
	} catch (e) {
		check("json", false, e.message);
		process.exit(1);
	}
	checkSchema(doc);
	await checkImport(doc);
	process.exit(failed ? 1 : 0);
})().catch((e) => { check("run", false, e.message); process.exit(1); });
