// Puppeteer's configuration file, read at install time by its postinstall script (cosmiconfig searches upward from
// node_modules/puppeteer, so this file is found) and at launch. `skipDownload: true` stops `npm ci` from downloading a
// Chrome build of its own: the diagrams are rendered by Debian's chromium (scripts/install-tools.sh), named in
// puppeteer-config.json. Without it the postinstall tries storage.googleapis.com and fails where only the package
// registries are reachable. Documented: https://pptr.dev/api/puppeteer.configuration (skipDownload, "Can be
// overridden by PUPPETEER_SKIP_DOWNLOAD").
module.exports = { skipDownload: true };
