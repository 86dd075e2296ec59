# Lab guide §8.3: kube-proxy's mode in its ConfigMap and logs; switch to IPVS (kubectl edit) and restart the DaemonSet.
#! edit mode: "" => mode: "ipvs"
$ kubectl get cm -n kube-system kube-proxy -o yaml | grep mode
$ kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name
# The guide types a pod name it saw (kube-proxy-9xfwh there).
$ POD=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)
$ kubectl logs -n kube-system $POD | grep Using
$ kubectl edit configmap -n kube-system kube-proxy
$ kubectl get cm -n kube-system kube-proxy -o yaml | grep mode
$ kubectl rollout restart daemonset -n kube-system kube-proxy
$ kubectl rollout status daemonset -n kube-system kube-proxy
$ kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name
$ NEW=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)
$ kubectl logs -n kube-system $NEW | grep Using
$ ip addr show kube-ipvs0 | head -3
