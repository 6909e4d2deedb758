// The widget's styles, inside its shadow root. `:host` resets with !important, which beats the host page's own rules
// (even `* { all: unset }`), and every colour comes from the agent's theme through custom properties.

/** Below this width the open panel fills the screen, and the launcher hides so it covers none of the panel. */
export const FULL_SCREEN = '(max-width:480px)';

export const STYLE = `
:host{all:initial!important;display:block!important}
.frame{--primary:#2563eb;--secondary:#f3f4f6;--bg:#fff;--text:#111827;--user:#2563eb;--agent:#f3f4f6;font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);visibility:hidden}
.frame.ready{visibility:visible}
.frame *{box-sizing:border-box;font:inherit}
.bubble .launcher{position:fixed;bottom:20px;right:20px;z-index:2147483647;width:56px;height:56px;border-radius:50%;border:0;background:var(--primary);color:#fff;cursor:pointer;display:flex;align-items:center;justify-content:center;box-shadow:0 4px 14px rgba(0,0,0,.25)}
.bubble.left .launcher{right:auto;left:20px}
.bubble .panel{position:fixed;bottom:88px;right:20px;z-index:2147483647;width:min(380px,calc(100vw - 24px));height:min(600px,calc(100vh - 108px))}
.bubble.left .panel{right:auto;left:20px}
.page .panel{position:fixed;inset:0}
.panel{display:flex;flex-direction:column;background:var(--bg);color:var(--text);border-radius:12px;overflow:hidden;box-shadow:0 8px 30px rgba(0,0,0,.25)}
.page .panel{border-radius:0;box-shadow:none}
.panel[hidden],[hidden]{display:none!important}
header{display:flex;align-items:center;gap:8px;padding:12px 14px;background:var(--primary);color:#fff}
.heading{flex:1;min-width:0}
.title{margin:0;font-size:16px;font-weight:600}
.subtitle{margin:0;font-size:13px;opacity:.85}
.subtitle:empty{display:none}
header button{background:transparent;color:inherit;border:1px solid rgba(255,255,255,.5);border-radius:6px;padding:4px 8px;cursor:pointer}
.close{font-size:20px;line-height:1;border:0!important}
.notice{margin:0;padding:8px 14px;font-size:13px;background:var(--secondary)}
.notice:empty{display:none}
.notice.error,.notice.slow{background:#fef3c7;color:#78350f}
.log{flex:1;overflow-y:auto;margin:0;padding:12px;list-style:none;display:flex;flex-direction:column;gap:8px}
.message{max-width:85%;padding:8px 12px;border-radius:14px;white-space:pre-wrap;overflow-wrap:anywhere}
.message.agent{align-self:flex-start;background:var(--agent);color:var(--text);border-bottom-left-radius:4px}
.message .who{display:block;font-size:12px;font-weight:600;opacity:.75}
.message.user{align-self:flex-end;background:var(--user);color:#fff;border-bottom-right-radius:4px}
.typing{display:flex;gap:4px;padding:0 16px 8px}
.typing span{width:7px;height:7px;border-radius:50%;background:var(--text);opacity:.4;animation:blink 1s infinite}
.typing span:nth-child(2){animation-delay:.2s}.typing span:nth-child(3){animation-delay:.4s}
@keyframes blink{50%{opacity:1}}
.composer,.feedback{display:flex;gap:8px;padding:10px;border-top:1px solid var(--secondary)}
.feedback{flex-direction:column}
.feedback p{margin:0}
textarea{flex:1;resize:none;border:1px solid #d1d5db;border-radius:8px;padding:8px;background:#fff;color:#111827;min-height:40px}
.send{border:0;border-radius:8px;padding:8px 14px;background:var(--primary);color:#fff;cursor:pointer}
.stars{display:flex;gap:4px}
.star{border:0;background:transparent;font-size:24px;color:#9ca3af;cursor:pointer}
.star[aria-pressed=true]{color:#f59e0b}
button:focus-visible,textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media ${FULL_SCREEN}{.bubble .panel{inset:0;width:auto;height:auto;border-radius:0}.bubble .panel:not([hidden])~.launcher{display:none}}
@media (prefers-reduced-motion:reduce){.typing span{animation:none}}
`;
