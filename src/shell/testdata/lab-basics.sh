# Lab guide §3.1-3.3: deployment + ClusterIP service, describe, exec, expose with --selector, dry-run yaml then apply
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ kubectl create service clusterip web --tcp=8080:80
$ sleep 30
$ kubectl get svc
$ kubectl get pods -o wide
$ kubectl describe service web
$ kubectl describe svc web | grep -e Endpoints -e IP:
$ for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do kubectl exec -it $pod -- bash -c "echo $pod > htdocs/index.html"; done
$ for pod in $(kubectl get pods -o custom-columns=NAME:.metadata.name --no-headers); do kubectl exec $pod -- cat htdocs/index.html; done
$ kubectl label pod --all app2=web2
$ kubectl get pods --show-labels
$ kubectl delete svc web
$ kubectl expose deployment web --port=8080 --target-port=80 --selector=app2=web2
$ kubectl get endpoints web
$ kubectl delete svc web
$ kubectl create service clusterip web --tcp=8080:80 -o yaml --dry-run=client > svc-web.yml
$ cat svc-web.yml
$ kubectl apply -f svc-web.yml
$ kubectl apply -f svc-web.yml
$ kubectl scale deployment web --replicas 2
$ kubectl rollout restart deployment web
$ kubectl rollout status deployment web
$ kubectl get deploy,rs
$ kubectl get svc nope
$ kubectl get foo
$ kubectl get pods --foo
$ nosuchcommand
