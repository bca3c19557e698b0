// Starts `ownerlint server` for YAML and JSON files; everything else is the server's.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

exports.activate = function activate() {
  const config = vscode.workspace.getConfiguration('ownerlint');
  const command = config.get('path') || 'ownerlint';
  client = new LanguageClient(
    'ownerlint',
    'ownerlint',
    { command, args: ['server'] },
    {
      documentSelector: [{ language: 'yaml' }, { language: 'json' }],
      initializationOptions: { renderTimeout: config.get('renderTimeout') },
    },
  );
  return client.start();
};

exports.deactivate = function deactivate() {
  return client ? client.stop() : undefined;
};
