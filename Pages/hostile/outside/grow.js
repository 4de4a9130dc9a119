// outside/grow.js - outside the page's directory: must never run (links/page.html).
document.getElementById('ran').style.height = '1000px';
