// Run by vsce before it packages the extension (`vscode:prepublish`): the licence files are
// copied from the repository's root, and the extension is bundled with the language client
// into one file, so that the package holds no node_modules.
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..', '..');
for (const licence of ['LICENSE-MIT', 'LICENSE-APACHE']) {
  fs.copyFileSync(path.join(root, licence), path.join(__dirname, licence));
}
// vsce looks for a file named LICENSE: it says which two licences apply.
fs.writeFileSync(
  path.join(__dirname, 'LICENSE'),
  'ownerlint is licensed under either of\n\n' +
    ' * Apache License, Version 2.0 (LICENSE-APACHE, https://www.apache.org/licenses/LICENSE-2.0)\n' +
    ' * MIT license (LICENSE-MIT, https://opensource.org/licenses/MIT)\n\n' +
    'at your option.\n',
);

esbuild.buildSync({
  entryPoints: [path.join(__dirname, 'extension.js')],
  outfile: path.join(__dirname, 'dist', 'extension.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  minify: true,
  logLevel: 'warning',
});
