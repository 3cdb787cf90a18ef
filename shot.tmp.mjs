import { chromium } from 'playwright';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args:['--no-sandbox'] });
for (const [lang, w, h] of [['zh',1440,900],['en',1440,900],['zh',390,844]]) {
  const p = await b.newPage({ viewport: { width: w, height: h } });
  const errors = []; p.on('console', m => { if (m.type()==='error') errors.push(m.text()); });
  await p.goto(`http://127.0.0.1:8093/index.html?scenario=report&lang=${lang}`);
  await p.waitForSelector('agent-loop-playground');
  await p.waitForTimeout(800);
  await p.evaluate(() => { const e=document.querySelector('agent-loop-playground'); for (let i=0;i<40;i++) e.command('step'); });
  await p.waitForTimeout(300);
  await p.screenshot({ path: `/tmp/shot-${lang}-${w}.png`, fullPage: true });
  console.log(lang, w, errors);
}
await b.close();
