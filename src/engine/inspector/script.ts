/**
 * @module engine/inspector/script
 * The inspector page's script (/__mock/ui/inspector.js): polls the control API and draws the
 * journal, the jobs, the coverage and the client findings; its controls switch the scenario,
 * advance or set a job, and reset. Everything shown was sent by some client and is hostile:
 * it is put in with textContent only, never parsed as HTML. Vanilla JS, no build step, so the
 * text below is exactly what the browser runs (written without template literals, so it can sit
 * inside this module's own).
 */

// String.raw: every backslash in the script reaches the browser as written.
export const inspectorScript = String.raw`'use strict';
(function () {
  var api = '/__mock';
  var keep = 200;
  var journal = [];
  var cursor;
  var seenStates = {};
  // The state picked in each job's list: the table is drawn again every second with live
  // updates on, and a choice (or the keyboard's focus) lost mid-way would set the wrong state.
  var chosenStates = {};
  /** True from a pick in the scenario list until it is put in force (or the mock is reset). */
  var scenarioPicked = false;
  var busy = false;
  /** The session shown and acted on (docs/assumptions.md A-60): every call carries it. */
  var session = 'default';
  var tokenInput = document.getElementById('token');
  var statusLine = document.getElementById('status');
  try { tokenInput.value = sessionStorage.getItem('evidence-harness-token') || ''; } catch (ignored) {}

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function say(text, isError) {
    statusLine.textContent = text;
    statusLine.className = isError ? 'error' : '';
  }

  function call(method, path, body) {
    var headers = {};
    if (tokenInput.value) headers['X-Mock-Token'] = tokenInput.value;
    if (session !== 'default') headers['X-Mock-Session'] = session;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(api + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' })
      .then(function (response) {
        return response.text().then(function (text) {
          var parsed;
          try { parsed = JSON.parse(text); } catch (ignored) { parsed = undefined; }
          if (!response.ok) {
            var message = parsed && typeof parsed.message === 'string' ? parsed.message : 'HTTP ' + response.status;
            if (response.status === 401) message = 'The control API needs the token the mock printed at start: enter it as Control token.';
            throw new Error(message);
          }
          return parsed;
        });
      });
  }

  function replaceRows(tbody, rows) {
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    rows.forEach(function (row) { tbody.appendChild(row); });
  }

  function row(cells) {
    var tr = el('tr');
    cells.forEach(function (cell) {
      if (cell instanceof Node) { var td = el('td'); td.appendChild(cell); tr.appendChild(td); }
      else tr.appendChild(el('td', cell === undefined ? '' : cell));
    });
    return tr;
  }

  function clockTime(ms) {
    var date = new Date(ms);
    return isNaN(date.getTime()) ? String(ms) : date.toISOString().slice(11, 23);
  }

  function jobState(job) {
    return job.status + (job.evaluation ? ' ' + job.evaluation : '');
  }

  /** Adds a state to a job's timeline: from the journal (its status) or the jobs listing (with its evaluation). */
  function noteState(jobId, state) {
    var states = seenStates[jobId] || (seenStates[jobId] = []);
    var last = states[states.length - 1];
    if (last === state) return;
    // The journal says COMPLETE, the listing COMPLETE PASS: one state, shown with its evaluation.
    if (last !== undefined && last.split(' ')[0] === state.split(' ')[0]) {
      if (state.length > last.length) states[states.length - 1] = state;
      return;
    }
    states.push(state);
  }

  /** A job id that wraps at its separators (or every 12 characters), never one character to a line. */
  function idNode(id) {
    var node = el('code', undefined, 'id');
    var text = String(id);
    var run = '';
    for (var index = 0; index < text.length; index += 1) {
      run += text.charAt(index);
      if (/[-_./]/.test(text.charAt(index)) || run.length >= 12) {
        node.appendChild(document.createTextNode(run));
        if (index < text.length - 1) node.appendChild(document.createElement('wbr'));
        run = '';
      }
    }
    if (run) node.appendChild(document.createTextNode(run));
    return node;
  }

  function isFinal(job) {
    return job.status !== 'QUEUED' && job.status !== 'RUNNING';
  }

  function statusMatches(filter, status) {
    filter = filter.trim().toLowerCase();
    if (!filter) return true;
    return filter.split(/[ ,]+/).some(function (part) {
      if (/^[1-5]xx$/.test(part)) return String(status).charAt(0) === part.charAt(0);
      return part === String(status);
    });
  }

  function drawJournal() {
    var operation = document.getElementById('filter-operation').value;
    var status = document.getElementById('filter-status').value;
    var path = document.getElementById('filter-path').value;
    var shown = journal.filter(function (entry) {
      return (!operation || entry.operationId === operation) && statusMatches(status, entry.status) && (!path || entry.path.indexOf(path) >= 0);
    }).slice(-keep).reverse();
    replaceRows(document.querySelector('#journal tbody'), shown.map(function (entry) {
      var tr = row([entry.seq, clockTime(entry.time), entry.method, entry.path, entry.status, entry.code, entry.operationId, entry.scenario]);
      tr.children[3].className = 'path';
      tr.children[4].className = 'status-' + String(entry.status).charAt(0);
      return tr;
    }));
  }

  function readJournal() {
    var asked = session;
    return call('GET', '/journal?limit=1000' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '')).then(function (page) {
      // Read before the session was switched: the entries are another session's.
      if (asked !== session) return;
      journal = journal.concat(page.entries).slice(-keep * 5);
      // The timeline of each job comes from the journal: every state an answer carried, in order.
      page.entries.forEach(function (entry) { if (entry.jobId && entry.jobStatus) noteState(entry.jobId, entry.jobStatus); });
      var last = page.entries[page.entries.length - 1];
      if (last) cursor = String(last.seq);
      drawJournal();
    }, function (error) {
      // A cursor from before a reset is refused: start again from the oldest entry.
      if (cursor && /cursor/.test(error.message)) { cursor = undefined; journal = []; seenStates = {}; return readJournal(); }
      throw error;
    });
  }

  function jobActions(job) {
    // A final state is final (A-3): there is nothing left to advance or set.
    if (isFinal(job)) return el('span', 'final', 'muted');
    var box = el('span', undefined, 'controls');
    var advance = el('button', 'Advance');
    advance.type = 'button';
    advance.setAttribute('aria-label', 'Advance job ' + job.jobId);
    advance.addEventListener('click', function () { act(call('POST', '/jobs/' + encodeURIComponent(job.jobId) + '/advance'), 'advanced ' + job.jobId); });
    var choice = el('select');
    choice.setAttribute('aria-label', 'New state for job ' + job.jobId);
    ['RUNNING', 'COMPLETE PASS', 'COMPLETE FAIL', 'COMPLETE INDETERMINATE', 'FAILED'].forEach(function (state) { choice.appendChild(el('option', state)); });
    if (chosenStates[job.jobId]) choice.value = chosenStates[job.jobId];
    choice.addEventListener('change', function () { chosenStates[job.jobId] = choice.value; });
    var set = el('button', 'Set state');
    set.type = 'button';
    set.setAttribute('aria-label', 'Set the state of job ' + job.jobId);
    set.addEventListener('click', function () {
      var parts = choice.value.split(' ');
      var body = parts[1] ? { status: parts[0], evaluation: parts[1] } : { status: parts[0] };
      act(call('PUT', '/jobs/' + encodeURIComponent(job.jobId) + '/state', body), 'set ' + job.jobId + ' to ' + choice.value);
    });
    box.appendChild(advance);
    box.appendChild(choice);
    box.appendChild(set);
    return box;
  }

  function readJobs() {
    return call('GET', '/jobs?limit=100').then(function (page) {
      document.getElementById('jobs-empty').hidden = page.jobs.length > 0;
      document.getElementById('jobs').hidden = page.jobs.length === 0;
      var tbody = document.querySelector('#jobs tbody');
      // The control that has the focus is found again by its label once the rows are new.
      var focused = tbody.contains(document.activeElement) ? document.activeElement.getAttribute('aria-label') : null;
      replaceRows(tbody, page.jobs.map(function (inspection) {
        var job = inspection.job;
        // States set through the control API are not in the journal: the listing adds them.
        noteState(job.jobId, jobState(job));
        return row([idNode(job.jobId), jobState(job), el('span', seenStates[job.jobId].join(' → '), 'timeline'), inspection.reads, inspection.scenario, jobActions(job)]);
      }));
      if (focused) {
        var again = Array.prototype.find.call(tbody.querySelectorAll('[aria-label]'), function (node) { return node.getAttribute('aria-label') === focused; });
        if (again) again.focus();
      }
    });
  }

  function behaviourItem(behaviour, className) {
    var item = el('li', undefined, className);
    item.appendChild(el('code', behaviour.id));
    item.appendChild(document.createTextNode(' ' + behaviour.description + (behaviour.count ? ' (' + behaviour.count + ')' : '')));
    return item;
  }

  function readCoverage() {
    return call('GET', '/coverage').then(function (report) {
      document.getElementById('coverage-summary').textContent = report.covered + ' of ' + report.total + ' behaviours covered';
      replaceRows(document.getElementById('coverage-missing'), report.behaviours.filter(function (b) { return !b.covered; }).map(function (b) { return behaviourItem(b, 'missing'); }));
      replaceRows(document.getElementById('coverage-covered'), report.behaviours.filter(function (b) { return b.covered; }).map(function (b) { return behaviourItem(b, 'covered'); }));
      var findings = report.clientFindings;
      document.getElementById('findings-empty').hidden = findings.length > 0;
      document.getElementById('findings').hidden = findings.length === 0;
      replaceRows(document.querySelector('#findings tbody'), findings.map(function (finding) {
        var example = finding.example;
        var tr = row([finding.rule, finding.count, finding.message, example.method + ' ' + example.path + ' → ' + example.status]);
        tr.children[2].className = 'message';
        return tr;
      }));
    });
  }

  function readProfile() {
    return call('GET', '/profile').then(function (profile) {
      var declared = profile.declared;
      document.getElementById('profile-summary').textContent = declared.length === 0
        ? 'No profile: the answers of docs/assumptions.md.'
        : profile.source + ': ' + declared.length + ' entries declared (docs/profiles.md)';
      document.getElementById('profile').hidden = declared.length === 0;
      replaceRows(document.querySelector('#profile tbody'), declared.map(function (name) { return row([name, JSON.stringify(profile.entries[name])]); }));
    });
  }

  function readScenarios() {
    return call('GET', '/scenarios').then(function (listing) {
      var select = document.getElementById('scenario');
      if (select.options.length !== listing.scenarios.length) {
        while (select.firstChild) select.removeChild(select.firstChild);
        listing.scenarios.forEach(function (scenario) {
          var option = el('option', scenario.name);
          option.value = scenario.name;
          option.title = scenario.description;
          select.appendChild(option);
        });
      }
      // A scenario picked but not yet put in force stays picked, whatever the refresh says is current.
      if (document.activeElement !== select && !scenarioPicked) select.value = listing.current;
    });
  }

  function readSessions() {
    return call('GET', '/sessions').then(function (listing) {
      var select = document.getElementById('session');
      var names = listing.sessions.map(function (each) { return each.name; });
      // The session shown stays listed even once the mock forgot it: its next call makes it again.
      if (names.indexOf(session) < 0) names.push(session);
      var shown = Array.prototype.map.call(select.options, function (option) { return option.value; });
      if (shown.join('\n') !== names.join('\n')) {
        while (select.firstChild) select.removeChild(select.firstChild);
        names.forEach(function (name) {
          var option = el('option', name);
          option.value = name;
          select.appendChild(option);
        });
      }
      if (document.activeElement !== select) select.value = session;
    });
  }

  function refresh() {
    if (busy) return Promise.resolve();
    busy = true;
    // The journal before the jobs: a job's timeline is the journal's states, then the listing's.
    return Promise.all([readSessions(), readScenarios(), readJournal().then(readJobs), readCoverage(), readProfile()]).then(function () {
      if (statusLine.className === 'error') say('');
    }, function (error) { say(error.message, true); }).then(function () { busy = false; });
  }

  function act(promise, done) {
    promise.then(function () { say(done); return refresh(); }, function (error) { say(error.message, true); });
  }

  document.getElementById('scenario-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var name = document.getElementById('scenario').value;
    scenarioPicked = false;
    act(call('PUT', '/scenario', { name: name }), 'scenario ' + name + ' in force');
  });
  document.getElementById('scenario').addEventListener('change', function () { scenarioPicked = true; });
  document.getElementById('session').addEventListener('change', function (event) {
    // Another session: another journal, jobs and scenario; nothing of the one before is kept.
    session = event.target.value;
    journal = [];
    cursor = undefined;
    seenStates = {};
    chosenStates = {};
    scenarioPicked = false;
    say('session ' + session);
    refresh();
  });
  document.getElementById('reset').addEventListener('click', function () {
    seenStates = {};
    chosenStates = {};
    scenarioPicked = false;
    act(call('POST', '/reset'), 'mock reset');
  });
  document.getElementById('reset-coverage').addEventListener('click', function () { act(call('POST', '/coverage/reset'), 'coverage reset'); });
  tokenInput.addEventListener('change', function () {
    try { sessionStorage.setItem('evidence-harness-token', tokenInput.value); } catch (ignored) {}
    refresh();
  });
  ['filter-operation', 'filter-status', 'filter-path'].forEach(function (id) { document.getElementById(id).addEventListener('input', drawJournal); });
  document.getElementById('journal-filters').addEventListener('submit', function (event) { event.preventDefault(); });
  setInterval(function () { if (document.getElementById('live').checked) refresh(); }, 1000);
  refresh();
})();
`;
