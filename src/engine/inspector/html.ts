/**
 * @module engine/inspector/html
 * The inspector page's document (/__mock/ui). Static: every value it shows is fetched by its
 * script from the control API and put in with textContent, so nothing a client sent can become
 * markup. Isomorphic text, so MSW could serve the page as the node server does.
 */

export const inspectorHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>evidence-harness inspector</title>
<link rel="stylesheet" href="/__mock/ui/inspector.css">
<link rel="icon" href="/__mock/ui/favicon.svg">
<script src="/__mock/ui/inspector.js" defer></script>
</head>
<body>
<header>
  <h1>evidence-harness inspector</h1>
  <form id="scenario-form" class="controls">
    <label for="session">Session</label>
    <select id="session" name="session"><option value="default">default</option></select>
    <label for="scenario">Scenario</label>
    <select id="scenario" name="scenario"></select>
    <button type="submit" id="use-scenario">Use scenario</button>
    <button type="button" id="reset">Reset mock</button>
    <button type="button" id="reset-coverage">Reset coverage</button>
    <label for="live">Live updates</label>
    <input type="checkbox" id="live" checked>
    <label for="token">Control token</label>
    <input type="password" id="token" autocomplete="off" placeholder="only beyond loopback">
  </form>
  <p id="status" role="status" aria-live="polite"></p>
</header>
<main>
  <section aria-labelledby="coverage-title">
    <h2 id="coverage-title">Coverage</h2>
    <p id="coverage-summary"></p>
    <h3>Missing</h3>
    <ul id="coverage-missing" class="behaviours" tabindex="0" aria-label="Missing behaviours"></ul>
    <details>
      <summary>Covered</summary>
      <ul id="coverage-covered" class="behaviours" tabindex="0" aria-label="Covered behaviours"></ul>
    </details>
  </section>
  <section aria-labelledby="profile-title">
    <h2 id="profile-title">Server profile</h2>
    <p id="profile-summary"></p>
    <table id="profile" hidden>
      <thead><tr><th scope="col">Entry</th><th scope="col">Answer</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section aria-labelledby="findings-title">
    <h2 id="findings-title">Client findings</h2>
    <p id="findings-empty">No findings.</p>
    <table id="findings">
      <thead><tr><th scope="col">Rule</th><th scope="col">Count</th><th scope="col">Message</th><th scope="col">Example request</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section aria-labelledby="jobs-title">
    <h2 id="jobs-title">Jobs</h2>
    <p id="jobs-empty">No jobs.</p>
    <table id="jobs">
      <thead><tr><th scope="col">Job</th><th scope="col">State</th><th scope="col">Timeline seen</th><th scope="col">Reads</th><th scope="col">Scenario</th><th scope="col">Actions</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section aria-labelledby="journal-title">
    <h2 id="journal-title">Journal</h2>
    <form id="journal-filters" class="controls">
      <label for="filter-operation">Operation</label>
      <select id="filter-operation">
        <option value="">any</option>
        <option>health</option>
        <option>createEvaluation</option>
        <option>verifyReport</option>
        <option>getJob</option>
      </select>
      <label for="filter-status">Status</label>
      <input id="filter-status" size="6" placeholder="4xx, 409">
      <label for="filter-path">Path contains</label>
      <input id="filter-path" size="16">
    </form>
    <table id="journal">
      <thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Code</th><th scope="col">Operation</th><th scope="col">Scenario</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
</main>
</body>
</html>
`;
