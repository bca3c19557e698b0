// Starts `ownerlint server` for YAML, JSON and Helm chart templates; everything else is the
// server's. Bundled into dist/extension.js (build.js) when the extension is packaged.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

// `helm` is the language the Kubernetes extension gives chart templates; the server finds a
// template by its place in a chart, whatever the editor calls its language.
const LANGUAGES = ['yaml', 'json', 'helm'];

// The settings the server is started with: a change to one of them starts it again.
const RESTART_ON = ['ownerlint.path', 'ownerlint.server.args', 'ownerlint.renderTimeout'];

let client;

function serverArgs(config) {
  const args = config.get('server.args');
  const valid = Array.isArray(args) && args.every((arg) => typeof arg === 'string');
  return valid && args.length > 0 ? args : ['server'];
}

function start() {
  const config = vscode.workspace.getConfiguration('ownerlint');
  const command = config.get('path') || 'ownerlint';
  // The client reads `ownerlint.trace.server` itself, by its id.
  client = new LanguageClient(
    'ownerlint',
    'ownerlint',
    { command, args: serverArgs(config) },
    {
      documentSelector: LANGUAGES.map((language) => ({ language })),
      initializationOptions: { renderTimeout: config.get('renderTimeout') },
    },
  );
  return client.start();
}

exports.activate = function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!RESTART_ON.some((setting) => event.affectsConfiguration(setting))) {
        return;
      }
      if (client) {
        await client.stop();
      }
      await start();
    }),
  );
  return start();
};

exports.deactivate = function deactivate() {
  return client ? client.stop() : undefined;
};
