// The console's only script: the runs chart (uPlot) and a running backfill's live progress. The page
// works without it; this only draws and refreshes.
(function () {
  'use strict';

  function drawChart() {
    var holder = document.getElementById('runs-chart');
    var data = document.getElementById('runs-data');
    if (!holder || !data || typeof uPlot === 'undefined') return;
    var series = JSON.parse(data.textContent || '[]');
    if (series.length === 0) {
      holder.textContent = 'No finished runs to chart yet.';
      return;
    }
    var width = Math.max(320, holder.clientWidth || 800);
    new uPlot(
      {
        width: width,
        height: 240,
        series: [{}, { label: 'Written', stroke: '#0b5cad', width: 2, points: { show: true } }, { label: 'Failed', stroke: '#a3201b', width: 2, points: { show: true } }],
        axes: [{}, { label: 'Records' }],
      },
      [series.map(function (p) { return p.at; }), series.map(function (p) { return p.written; }), series.map(function (p) { return p.failed; })],
      holder,
    );
  }

  function seconds(value) {
    if (value === null || value === undefined) return '-';
    if (value < 90) return Math.round(value) + ' s';
    return Math.round(value / 60) + ' min';
  }

  function watchBackfill() {
    var panel = document.getElementById('backfill-progress');
    if (!panel) return;
    var bar = document.getElementById('backfill-bar');
    var text = document.getElementById('backfill-text');
    var url = panel.getAttribute('data-url');
    function tick() {
      fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (answer) { return answer.json(); })
        .then(function (view) {
          if (view.error) {
            text.textContent = view.error;
            return;
          }
          var total = Math.max(view.entityExpected || view.entityRecords || 1, view.entityRecords, 1);
          bar.max = view.finished ? 1 : total;
          bar.value = view.finished ? 1 : view.entityRecords;
          panel.setAttribute('data-records', String(view.records));
          var where = view.entity ? view.entity + ' (' + view.index + ' of ' + view.of + '): ' + view.entityRecords + ' of ' + (view.entityExpected === null ? '?' : view.entityExpected) : view.finished ? 'done' : 'starting';
          text.textContent =
            view.status + ' · ' + where + ' · read ' + view.records + ', written ' + view.written + ', unchanged ' + view.unchanged + ', failed ' + view.failed +
            ' · ' + (view.perSecond === null ? '-' : Math.round(view.perSecond)) + ' records/s · ETA ' + seconds(view.etaSeconds);
          if (view.status === 'RUNNING') setTimeout(tick, 1000);
        })
        .catch(function (error) {
          text.textContent = 'Progress unavailable: ' + error.message;
          setTimeout(tick, 3000);
        });
    }
    tick();
  }

  drawChart();
  watchBackfill();
})();
