// The dashboard's script (served as a file: the page's CSP allows no inline script). It calls
// the page's JSON endpoints with the session cookie and the CSRF token from <meta>, and builds
// every piece of the page it changes with textContent, never innerHTML.
'use strict';

(function () {
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  if (!csrfMeta) return; // the sign-in page has nothing to drive
  var csrf = csrfMeta.getAttribute('content') || '';

  var form = document.getElementById('create-key');
  var message = document.getElementById('message');
  var newKey = document.getElementById('new-key');
  var newKeyValue = document.getElementById('new-key-value');
  var newKeyName = document.getElementById('new-key-name');
  var copyButton = document.getElementById('copy-key');
  var tbody = document.querySelector('#keys tbody');
  var noKeys = document.getElementById('no-keys');
  var signOut = document.getElementById('sign-out');

  function say(text, kind) {
    message.textContent = text;
    message.className = kind || '';
    message.hidden = !text;
  }

  /** Calls a dashboard endpoint; resolves to the parsed body (or null), rejects with the server's message. */
  function call(method, path, body) {
    var headers = { 'x-csrf-token': csrf };
    var init = { method: method, headers: headers, credentials: 'same-origin' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      if (response.status === 401) {
        window.location.assign('/dashboard');
        throw new Error('Your session has ended; sign in again.');
      }
      if (response.status === 204) return null;
      return response.json().then(
        function (data) {
          if (!response.ok) throw new Error((data && data.message) || 'Request failed (' + response.status + ').');
          return data;
        },
        function () {
          throw new Error('Request failed (' + response.status + ').');
        },
      );
    });
  }

  function formatDate(iso) {
    return iso.slice(0, 10) + ' ' + iso.slice(11, 16) + ' UTC';
  }

  function cell(row, content) {
    var td = document.createElement('td');
    if (content instanceof Node) td.appendChild(content);
    else td.textContent = content;
    row.appendChild(td);
    return td;
  }

  function time(iso) {
    var t = document.createElement('time');
    t.dateTime = iso;
    t.textContent = formatDate(iso);
    return t;
  }

  function render(keys) {
    tbody.replaceChildren();
    keys.forEach(function (key) {
      var row = document.createElement('tr');
      row.dataset.id = key.id;
      row.dataset.status = key.status;
      cell(row, key.name).className = 'name';
      cell(row, time(key.createdAt));
      cell(row, time(key.expiresAt));
      var status = document.createElement('span');
      status.className = 'status status-' + key.status;
      status.textContent = key.status;
      cell(row, status);
      var actions = cell(row, '');
      actions.className = 'actions';
      if (key.status === 'active') {
        var button = document.createElement('button');
        button.type = 'button';
        button.className = 'revoke danger';
        button.dataset.id = key.id;
        button.dataset.name = key.name;
        button.textContent = 'Revoke';
        actions.appendChild(button);
      }
      tbody.appendChild(row);
    });
    noKeys.hidden = keys.length > 0;
  }

  function refresh() {
    return call('GET', '/dashboard/api/keys').then(function (data) {
      render(data.keys);
    });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var name = form.elements.namedItem('name').value;
    var days = Number(form.elements.namedItem('expiresInDays').value);
    var submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    say('');
    call('POST', '/dashboard/api/keys', { name: name, expiresInDays: days })
      .then(function (created) {
        newKeyValue.value = created.key;
        newKeyName.textContent = created.name;
        newKey.dataset.id = created.id;
        newKey.hidden = false;
        copyButton.textContent = 'Copy';
        newKeyValue.focus();
        newKeyValue.select();
        form.reset();
        say('Key "' + created.name + '" created. It expires ' + formatDate(created.expiresAt) + '.', 'ok');
        return refresh();
      })
      .catch(function (error) {
        say(error.message, 'error');
      })
      .finally(function () {
        submit.disabled = false;
      });
  });

  copyButton.addEventListener('click', function () {
    newKeyValue.select();
    var done = function () {
      copyButton.textContent = 'Copied';
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(newKeyValue.value).then(done, function () {
        say('Could not copy; select the key and copy it by hand.', 'error');
      });
    } else {
      say('Select the key and copy it (Ctrl+C or ⌘C).', 'ok');
    }
  });

  tbody.addEventListener('click', function (event) {
    var button = event.target.closest('button.revoke');
    if (!button) return;
    var name = button.dataset.name;
    if (!window.confirm('Revoke the key "' + name + '"? Anything using it stops working at once.')) return;
    button.disabled = true;
    call('DELETE', '/dashboard/api/keys/' + encodeURIComponent(button.dataset.id))
      .then(function () {
        if (newKey.dataset.id === button.dataset.id) {
          newKey.hidden = true;
          newKeyValue.value = '';
        }
        say('Key "' + name + '" revoked.', 'ok');
        return refresh();
      })
      .catch(function (error) {
        button.disabled = false;
        say(error.message, 'error');
      });
  });

  signOut.addEventListener('click', function () {
    signOut.disabled = true;
    call('POST', '/dashboard/logout')
      .then(function () {
        window.location.assign('/dashboard');
      })
      .catch(function (error) {
        signOut.disabled = false;
        say(error.message, 'error');
      });
  });
})();
